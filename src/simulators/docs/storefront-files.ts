import { storefrontOpenApi } from "./storefront-openapi.js";

/**
 * Faults planted in the "Storefront API" project, each one of the seed's
 * causes of a blank or missing page. Listed for tests and the site checker.
 */
export const storefrontPlantedFaults = [
  {
    fault: "operation-mismatch",
    where: "api-reference/orders/get-order.mdx",
    detail: 'front matter says openapi "GET /order/{orderId}"; the spec has GET /orders/{orderId}',
  },
  {
    fault: "left-out-by-pages-filter",
    where: "layout.json navigation",
    detail: "DELETE /orders/{orderId} is in openapi.yaml but no navigation group lists it",
  },
  {
    fault: "excluded-operation",
    where: "layout.json navigation group Catalog",
    detail: "navigation lists GET /inventory/{sku}, which openapi.yaml marks x-excluded: true",
  },
  {
    fault: "duplicate-page",
    where: "layout.json navigation group Refunds",
    detail:
      'POST /refunds is listed as a generated page and api-reference/refunds/create-refund.mdx is a hand-written page for it (openapi "POST /refunds")',
  },
] as const;

/** Mailbox named on the support page that the docs-edit example replaces. */
export const retiredSupportEmail = "help@old-storefront.example";

const layout = {
  name: "Storefront API",
  api: {
    baseUrl: "https://api.storefront.example/v1",
    openapi: "openapi.yaml",
    auth: { method: "bearer" },
    playground: { display: "interactive", proxy: false },
    examples: { languages: ["curl", "javascript", "python"], defaults: "required", prefill: true },
  },
  navigation: {
    languages: [
      {
        language: "en",
        default: true,
        groups: [
          { group: "Get started", pages: ["introduction", "quickstart", "authentication"] },
          {
            group: "Orders",
            openapi: "openapi.yaml",
            pages: [
              "api-reference/orders/list-orders",
              "api-reference/orders/create-order",
              "api-reference/orders/get-order",
            ],
          },
          {
            group: "Catalog",
            openapi: "openapi.yaml",
            pages: ["GET /products", "GET /inventory/{sku}"],
          },
          {
            group: "Refunds",
            openapi: "openapi.yaml",
            pages: ["POST /refunds", "api-reference/refunds/create-refund"],
          },
          { group: "Utilities", pages: ["api-reference/status"] },
          { group: "Help", pages: ["support"] },
        ],
      },
    ],
  },
  tabs: [
    { name: "Guides", url: "guides", icon: "book-open" },
    { name: "API reference", url: "api-reference", icon: "code" },
  ],
  topAnchor: { name: "Storefront", icon: "store" },
};

/** Path and content of every file of the "Storefront API" project. */
export const storefrontFiles: readonly (readonly [string, string])[] = [
  ["layout.json", `${JSON.stringify(layout, null, 2)}\n`],
  ["openapi.yaml", storefrontOpenApi],
  [
    "introduction.mdx",
    `---
title: Introduction
description: What the Storefront API does and how the reference is organised.
---

The Storefront API lets merchants manage orders, products, inventory and refunds.
All requests go to \`https://api.storefront.example/v1\` and return JSON.

<CardGroup cols={2}>
  <Card title="Quickstart" href="/quickstart">Make your first request in five minutes.</Card>
  <Card title="Authentication" href="/authentication">Create and rotate API tokens.</Card>
</CardGroup>
`,
  ],
  [
    "quickstart.mdx",
    `---
title: Quickstart
description: List your first orders with curl.
---

1. Create a token in the merchant dashboard under **Settings > API tokens**.
2. List the latest orders:

\`\`\`bash
curl https://api.storefront.example/v1/orders?limit=5 \\
  -H "Authorization: Bearer $STOREFRONT_TOKEN"
\`\`\`

3. Read the [orders reference](/api-reference/orders/list-orders) for filters and paging.
`,
  ],
  [
    "authentication.mdx",
    `---
title: Authentication
description: Bearer tokens, scopes and rotation.
---

Every request except \`GET /status\` needs an \`Authorization: Bearer <token>\` header.
Tokens are scoped to one store. Rotate them by creating a new token, deploying it,
and revoking the old one.
`,
  ],
  [
    "support.mdx",
    `---
title: Support
description: How to reach the Storefront API team.
---

## Getting help

Write to ${retiredSupportEmail} with your store id and the \`x-request-id\` header
of the failing request. We answer within one business day.

For outages, see the status page at https://status.storefront.example.
`,
  ],
  [
    "api-reference/orders/list-orders.mdx",
    `---
title: List orders
description: Page through orders, newest first, optionally filtered by status.
openapi: "GET /orders"
---

Use \`cursor\` from \`next_cursor\` to fetch the next page.
`,
  ],
  [
    "api-reference/orders/create-order.mdx",
    `---
title: Create an order
description: Create an order from product lines.
openapi: "POST /orders"
---

Prices are taken from the catalog unless a line gives \`unit_price\`.
`,
  ],
  [
    "api-reference/orders/get-order.mdx",
    `---
title: Retrieve an order
description: Fetch one order by id.
openapi: "GET /order/{orderId}"
---

The order id is the \`id\` field returned by List orders.
`,
  ],
  [
    "api-reference/refunds/create-refund.mdx",
    `---
title: Refund an order
description: Issue a full or partial refund.
openapi: "POST /refunds"
---

Refunds go back to the original payment method within 5 to 10 business days.
`,
  ],
  [
    "api-reference/status.mdx",
    `---
title: Service status
description: Check that the API is up; no token needed.
openapi: "GET /status"
authMethod: none
---
`,
  ],
];
