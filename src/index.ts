/**
 * Switchyard: tool-calling agents that act on real business APIs, and that
 * ask a human before they do anything that cannot be undone.
 *
 * The one public barrel. `switchyard/testing` holds the scripted model and
 * approver for tests; `switchyard/simulators` the local service simulators.
 */

// Agent loop
export { Agent, type ResumeOptions, type RunOptions } from "./agent/agent.js";
export type { AgentEvent } from "./agent/agent-events.js";
export type { AgentOptions, AgentRequestOptions } from "./agent/agent-options.js";
export { AgentStream } from "./agent/agent-stream.js";
// Human approval through messaging
export type { ApprovalMessagingClient } from "./agent/approval/approval-messaging-client.js";
export type { ApprovalAuditRecord } from "./agent/approval/audit-record.js";
export { MessagingApprover } from "./agent/approval/messaging-approver.js";
export {
  defaultApprovalTimeoutMs,
  type MessagingApproverOptions,
} from "./agent/approval/messaging-approver-options.js";
export type {
  ApprovalGateOptions,
  ApprovalRecord,
  ApprovedRecord,
  PendingRecord,
  RefusedRecord,
} from "./agent/approval-gate.js";
export type {
  ApprovalAction,
  ApprovalContext,
  ApprovalDecision,
  ApprovedDecision,
  Approver,
  PendingDecision,
  RefusedDecision,
} from "./agent/approver.js";
// Durable runs: suspend at the approval gate, resume elsewhere
export {
  RunConflictError,
  RunNotFoundError,
  RunNotResumableError,
  type RunNotResumableHint,
  RunStateError,
  RunStoreError,
} from "./agent/durable/durable-errors.js";
export { FileRunStore, type FileRunStoreOptions } from "./agent/durable/file-run-store.js";
export { parseRunState, serializeRunState } from "./agent/durable/parse-run-state.js";
export { isRunId } from "./agent/durable/run-id.js";
export {
  type FinishedCallStatus,
  type PendingCallPhase,
  type PendingToolCall,
  type RunState,
  type RunStateStatus,
  runStateFormat,
  runStateVersion,
} from "./agent/durable/run-state.js";
export type {
  RunClaim,
  RunClaimOptions,
  RunList,
  RunListOptions,
  RunReleaseOptions,
  RunSaveOptions,
  RunStore,
  RunSummary,
} from "./agent/durable/run-store.js";
export {
  InvalidToolInputError,
  MaxStepsExceededError,
  ToolExecutionError,
  ToolTimeoutError,
} from "./agent/errors.js";
export type {
  Model,
  ModelCallOptions,
  ModelChoice,
  ModelRequest,
  ModelResponse,
  ModelStream,
  ModelStreamEvent,
  ModelUsage,
} from "./agent/model.js";
export type {
  AssistantModelMessage,
  FunctionModelMessage,
  ModelMessage,
  ModelMessageRole,
  ModelToolCall,
  ModelToolChoice,
  ModelToolDefinition,
  SystemModelMessage,
  ToolModelMessage,
  UserModelMessage,
} from "./agent/model-message.js";
export type {
  RunResult,
  RunStatus,
  RunStep,
  RunUsage,
  ToolCallRecord,
  ToolCallStatus,
} from "./agent/run-result.js";
// Documentation hosting
export type { CheckSiteOptions } from "./clients/docs/check-site.js";
export { checkSiteConfig } from "./clients/docs/check-site-config.js";
export { DocsClient, type DocsClientOptions } from "./clients/docs/docs-client.js";
export { DocsPathNotFoundError } from "./clients/docs/docs-path-not-found-error.js";
export {
  type DocsRoute,
  type DocsRouteName,
  type DocsRouteOverrides,
  type DocsRoutes,
  docsRoutes,
} from "./clients/docs/docs-routes.js";
export { DocsTextNotFoundError } from "./clients/docs/docs-text-not-found-error.js";
export type {
  DocsFile,
  DocsManifest,
  DocsManifestEntry,
  DocsPulledFile,
  DocsPullResult,
  DocsPushedFile,
  DocsPushResult,
  DocsUser,
  Documentation,
} from "./clients/docs/docs-types.js";
export type { EditFileResult } from "./clients/docs/edit-file.js";
export type { ContentEdit, FileEdit, FindReplaceEdit } from "./clients/docs/file-edit.js";
export { type FrontMatter, parseFrontMatter } from "./clients/docs/front-matter.js";
export type {
  SiteCheckInput,
  SiteCheckResult,
  SiteFinding,
  SiteFindingCode,
  SiteFindingLocation,
  SiteFindingSeverity,
  SitePage,
} from "./clients/docs/site-finding.js";

// Messaging delivery
export {
  MessagingClient,
  type MessagingClientOptions,
} from "./clients/messaging/messaging-client.js";
export type {
  CreateSubscriptionLinkInput,
  MessageKind,
  MessageOption,
  SendMessageInput,
  SendMessageOptions,
} from "./clients/messaging/messaging-requests.js";
export {
  type MessagingRoute,
  type MessagingRouteName,
  type MessagingRouteOverrides,
  type MessagingRoutes,
  messagingRoutes,
} from "./clients/messaging/messaging-routes.js";
export {
  type AcceptedMessage,
  type Interaction,
  type InteractionAnswer,
  type InteractionState,
  type Message,
  type MessageCancellation,
  type MessageDeliveryError,
  type MessageState,
  type MessagingCapabilities,
  type SubscriptionLink,
  type SubscriptionLinkState,
  terminalInteractionStates,
  terminalSubscriptionLinkStates,
  type UnknownState,
} from "./clients/messaging/messaging-types.js";
export type {
  InteractionOutcome,
  SubscriptionLinkOutcome,
  WaitOptions,
} from "./clients/messaging/wait-options.js";
// Order management
export * from "./clients/orders/index.js";
// Reasoning service
export type {
  ChatAssistantMessage,
  ChatCallOptions,
  ChatChoice,
  ChatCompletion,
  ChatMessage,
  ChatRequest,
  ChatRole,
  ChatStream,
  ChatStreamEvent,
  ChatSystemMessage,
  ChatToolCall,
  ChatToolChoice,
  ChatToolDefinition,
  ChatToolMessage,
  ChatUsage,
  ChatUserMessage,
  CompressionOptions,
  ExtraBody,
  JsonSchema,
  ProviderRouting,
} from "./clients/reasoner/chat-types.js";
export { ReasonerClient } from "./clients/reasoner/reasoner-client.js";
export type { ReasonerClientOptions } from "./clients/reasoner/reasoner-client-options.js";
export {
  StreamError,
  type StreamErrorDetails,
  type StreamErrorKind,
} from "./clients/reasoner/stream-error.js";
export {
  type ExtraBodyMode,
  findChatRequestProblems,
  type ValidateChatRequestOptions,
  validateChatRequest,
} from "./clients/reasoner/validate-chat-request.js";
export type { RequestOptions } from "./clients/request-options.js";
// Errors and logging
export * from "./errors/index.js";
export { createLogger, type Logger } from "./internal/logger.js";
// Tools
export { defineTool, type ToolDefinition } from "./tools/define-tool.js";
// Tool sets over the three services
export {
  type DocsToolArguments,
  type DocsToolName,
  defaultDocsToolApprovals,
  docsToolNames,
} from "./tools/docs/docs-tool-names.js";
export { type DocsToolsOptions, docsTools } from "./tools/docs/docs-tools.js";
export type { DocsToolsClient } from "./tools/docs/docs-tools-client.js";
export {
  defaultMessagingToolApprovals,
  type MessagingToolArguments,
  type MessagingToolName,
  messagingToolNames,
} from "./tools/messaging/messaging-tool-names.js";
export { type MessagingToolsOptions, messagingTools } from "./tools/messaging/messaging-tools.js";
export type { MessagingToolsClient } from "./tools/messaging/messaging-tools-client.js";
export {
  defaultOrderToolApprovals,
  type OrderToolArguments,
  type OrderToolName,
  orderToolNames,
} from "./tools/orders/order-tool-names.js";
export { type OrderToolsOptions, orderTools } from "./tools/orders/order-tools.js";
export type { OrderToolsClient } from "./tools/orders/order-tools-client.js";
export type {
  ActionDescription,
  AnyTool,
  ArgumentsCheck,
  NeedsApproval,
  Tool,
  ToolContext,
} from "./tools/tool.js";
export { toolNamePattern } from "./tools/tool-name.js";
export type { ToolApprovalPolicy, ToolSetOptions } from "./tools/tool-set-options.js";
