const layout = {
  name: "Partner Portal",
  api: {
    baseUrl: "https://partners.storefront.example/v2",
    openapi: "openapi.yaml",
    auth: { method: "bearer" },
    playground: { display: "simplified", proxy: true },
    examples: { languages: ["curl", "python"], defaults: "required", prefill: false },
  },
  navigation: {
    languages: [
      {
        language: "en",
        default: true,
        groups: [
          { group: "Overview", pages: ["index"] },
          {
            group: "Reference",
            openapi: "openapi.yaml",
            pages: ["GET /partners/me", "GET /payouts"],
          },
        ],
      },
    ],
  },
  topAnchor: { name: "Partner Portal", icon: "handshake" },
};

const openApi = `openapi: 3.1.0
info:
  title: Partner Portal API
  version: 2.0.0
servers:
  - url: https://partners.storefront.example/v2
security:
  - bearerAuth: []
paths:
  /partners/me:
    get:
      operationId: getCurrentPartner
      summary: Current partner
      responses:
        "200":
          description: The partner the token belongs to.
          content:
            application/json:
              schema:
                type: object
                properties:
                  id:
                    type: string
                  name:
                    type: string
  /payouts:
    get:
      operationId: listPayouts
      summary: List payouts
      responses:
        "200":
          description: Payouts, newest first.
          content:
            application/json:
              schema:
                type: object
                properties:
                  data:
                    type: array
                    items:
                      type: object
                      properties:
                        id:
                          type: string
                        amount:
                          type: number
                        currency:
                          type: string
components:
  securitySchemes:
    bearerAuth:
      type: http
      scheme: bearer
`;

/** Path and content of every file of the "Partner Portal" project, which has no configuration fault. */
export const partnerPortalFiles: readonly (readonly [string, string])[] = [
  ["layout.json", `${JSON.stringify(layout, null, 2)}\n`],
  ["openapi.yaml", openApi],
  [
    "index.mdx",
    `---
title: Partner Portal
description: Payouts and account data for Storefront partners.
---

Partners use this API to read their account and payouts.
`,
  ],
];
