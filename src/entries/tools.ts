/**
 * `switchyard-agents/tools`: the parts of a tool and of a tool set, and the names,
 * arguments and default approvals of the three services' tools.
 *
 * @module switchyard-agents/tools
 */
export {
  type DocsToolArguments,
  type DocsToolName,
  defaultDocsToolApprovals,
  docsToolNames,
} from "../tools/docs/docs-tool-names.js";
export type { JsonSchema } from "../tools/json-schema.js";
export {
  defaultMessagingToolApprovals,
  type MessagingToolArguments,
  type MessagingToolName,
  messagingToolNames,
} from "../tools/messaging/messaging-tool-names.js";
export {
  defaultOrderToolApprovals,
  type OrderToolArguments,
  type OrderToolName,
  orderToolNames,
} from "../tools/orders/order-tool-names.js";
export type {
  ActionDescription,
  AnyTool,
  NeedsApproval,
  ToolTarget,
} from "../tools/tool.js";
export type { ToolApprovalPolicy, ToolSetOptions } from "../tools/tool-set-options.js";
