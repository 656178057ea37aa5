import type { ServiceRecord } from "../../clients/orders/order-types.js";
import { defineTool } from "../define-tool.js";
import { scrubResult } from "../scrub-result.js";
import type { NeedsApproval, Tool } from "../tool.js";
import type { OrderToolArguments } from "./order-tool-names.js";
import { defaultListLimit, orderToolSchemas } from "./order-tool-schemas.js";
import type { OrderToolsClient } from "./order-tools-client.js";

/** Result of every list tool: one page of records. */
export interface ListRecordsResult {
  items: ServiceRecord[];
  /** Records on this page. */
  count: number;
  offset: number;
  limit: number;
  /** The offset of the next page, or null when this page was the last. */
  next_offset: number | null;
}

/** The list tools, all taking the same paging arguments. */
export type ListToolName =
  | "list_orders"
  | "list_skus"
  | "list_inventory"
  | "list_returns"
  | "list_inbound_shipments"
  | "list_outbound_shipments";

type ListMethod =
  | "listOrders"
  | "listSkus"
  | "listInventory"
  | "listReturns"
  | "listInboundShipments"
  | "listOutboundShipments";

const listTools: Record<ListToolName, { method: ListMethod; what: string }> = {
  list_orders: { method: "listOrders", what: "orders (summary fields include status and total)" },
  list_skus: { method: "listSkus", what: "SKUs (products)" },
  list_inventory: { method: "listInventory", what: "inventory records (quantities per SKU)" },
  list_returns: { method: "listReturns", what: "returns (RMAs)" },
  list_inbound_shipments: {
    method: "listInboundShipments",
    what: "inbound shipments (deliveries to the warehouse)",
  },
  list_outbound_shipments: {
    method: "listOutboundShipments",
    what: "outbound shipments (parcels sent to customers)",
  },
};

/** One list tool (list_orders, list_skus, ...): a page of records. */
export function listRecordsTool(
  name: ListToolName,
  client: OrderToolsClient,
  needsApproval: NeedsApproval<OrderToolArguments[ListToolName]>,
): Tool<OrderToolArguments[ListToolName], ListRecordsResult> {
  const { method, what } = listTools[name];
  return defineTool({
    name,
    description: `Reads one page of ${what}. limit: 1 to 100 per page (default ${defaultListLimit}); offset: records to skip (default 0); list_type: "summary" (default, essential fields) or "detail" (every field); filters: field equality filters such as {"status": "shipped"}. Returns {items, count, offset, limit, next_offset}: call again with offset = next_offset until next_offset is null to read everything. Read-only.`,
    parameters: orderToolSchemas().listRecordsParameters,
    needsApproval,
    readOnly: true,
    execute: async ({ limit, offset, list_type, filters }, { signal }) => {
      const page = await client[method](
        { ...filters, limit, offset, listType: list_type },
        { signal },
      );
      const count = page.data.length;
      // A service may cap pages below the limit asked; its envelope says which applied.
      const applied =
        page.limit !== undefined && page.limit > 0 ? Math.min(page.limit, limit) : limit;
      const result: ListRecordsResult = {
        items: page.data,
        count,
        offset,
        limit,
        next_offset: count > 0 && count >= applied ? offset + count : null,
      };
      return scrubResult(result);
    },
  });
}
