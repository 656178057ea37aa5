/**
 * Switchyard: tool-calling agents that act on real business APIs, and that
 * ask a human before they do anything that cannot be undone.
 *
 * The main entry holds what an application imports: the agent, the clients,
 * the tool sets, `defineTool`, the approvers, the run stores and the errors a
 * caller catches. The rest is reached through subpaths:
 * `switchyard-agents/model` (the protocol a model implements), `switchyard-agents/agent`
 * (run records, approval records, saved run state), `switchyard-agents/tools`,
 * `switchyard-agents/reasoner`, `switchyard-agents/orders`, `switchyard-agents/docs`,
 * `switchyard-agents/messaging` (each service's types and tool names),
 * `switchyard-agents/errors`, `switchyard-agents/testing`, `switchyard-agents/simulators` and
 * `switchyard-agents/cli`. `test/package/public-names.test.ts` lists every name.
 *
 * @module switchyard-agents
 */

// The agent
export { Agent, type ResumeOptions, type RunOptions } from "./agent/agent.js";
export type { AgentEvent } from "./agent/agent-events.js";
export type { AgentOptions } from "./agent/agent-options.js";
export type { AgentStream } from "./agent/agent-stream.js";
export type { ApprovalPolicy, ApprovalRule } from "./agent/approval/approval-policy.js";
export type {
  ApprovalAction,
  ApprovalContext,
  ApprovalDecision,
  Approver,
} from "./agent/approver.js";
export {
  RunConflictError,
  RunNotFoundError,
  RunNotResumableError,
} from "./agent/durable/durable-errors.js";
export type { RunState } from "./agent/durable/run-state.js";
export type { RunStore } from "./agent/durable/run-store.js";
export { RunWorker, type RunWorkerOptions } from "./agent/durable/run-worker.js";
// Errors a caller catches
export {
  InvalidOutputError,
  MaxStepsExceededError,
  ToolExecutionError,
} from "./agent/errors.js";
export type { Model } from "./agent/model.js";
export type { ModelMessage } from "./agent/model-message.js";
export type { RunResult, ToolCallRecord } from "./agent/run-result.js";
// Loop control
export { hasToolCall, stepCountIs } from "./agent/stop-conditions.js";
// Approvers
export { MessagingApprover } from "./approvers/messaging/messaging-approver.js";
export type { MessagingApproverOptions } from "./approvers/messaging/messaging-approver-options.js";
// Clients
export { DocsClient, type DocsClientOptions } from "./clients/docs/docs-client.js";
export {
  MessagingClient,
  type MessagingClientOptions,
} from "./clients/messaging/messaging-client.js";
export { OrderClient } from "./clients/orders/order-client.js";
export type { OrderClientOptions } from "./clients/orders/order-client-options.js";
export type { KnownModel } from "./clients/reasoner/known-model.js";
export { ReasonerClient } from "./clients/reasoner/reasoner-client.js";
export type { ReasonerClientOptions } from "./clients/reasoner/reasoner-client-options.js";
export type { RequestOptions } from "./clients/request-options.js";
export {
  ApiError,
  NotFoundError,
  RateLimitError,
} from "./errors/api-error.js";
export { ConfigurationError } from "./errors/configuration-error.js";
export { SwitchyardError } from "./errors/switchyard-error.js";
export {
  AbortedError,
  ConnectionError,
  TimeoutError,
} from "./errors/transport-errors.js";
// Logging
export { createLogger } from "./internal/logger.js";
// Run stores
export { FileRunStore, type FileRunStoreOptions } from "./stores/file-run-store.js";
export { JsonlAuditLog, verifyAuditLog } from "./stores/jsonl-audit-log.js";
// Tools and the tool sets over the three services
export { defineTool, type ToolDefinition } from "./tools/define-tool.js";
export { type DocsToolsOptions, docsTools } from "./tools/docs/docs-tools.js";
export { type MessagingToolsOptions, messagingTools } from "./tools/messaging/messaging-tools.js";
export { type OrderToolsOptions, orderTools } from "./tools/orders/order-tools.js";
export type { Tool, ToolContext } from "./tools/tool.js";
