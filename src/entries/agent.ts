/**
 * `switchyard-agents/agent`: what a run is made of, for code that reads results,
 * approvals and saved runs closely: step and tool call records, approval
 * decisions and records, the saved run state and the run store's types.
 *
 * @module switchyard-agents/agent
 */

export type {
  ApprovalAuditLog,
  ApprovalAuditRecord,
  ApprovalDecider,
} from "../agent/approval/approval-audit-record.js";
export type { ApprovalExpiryAction } from "../agent/approval/approval-expiry.js";
export type { ApprovalRuleDecision } from "../agent/approval/approval-policy.js";
export type {
  AuditLog,
  AuditLogHead,
  AuditLogVerification,
} from "../agent/approval/audit-log.js";
export type {
  StandingApproval,
  StandingApprovalOffer,
  StandingCoverage,
  StandingScope,
} from "../agent/approval/standing-approval.js";
export type {
  ApprovalGateOptions,
  ApprovalRecord,
  ApprovedRecord,
  ExpiredRecord,
  PendingRecord,
  RefusedRecord,
  ShadowVerdict,
} from "../agent/approval-gate.js";
export type {
  ApprovalPeek,
  ApprovedDecision,
  DecisionSource,
  ExpiredDecision,
  PendingDecision,
  RefusedDecision,
} from "../agent/approver.js";
export type { RunNotResumableHint } from "../agent/durable/durable-errors.js";
export { InMemoryRunStore } from "../agent/durable/in-memory-run-store.js";
export { parseRunState, serializeRunState } from "../agent/durable/parse-run-state.js";
export { isRunId } from "../agent/durable/run-id.js";
export type {
  RunClaim,
  RunClaimDueOptions,
  RunClaimOptions,
  RunDueWaitOptions,
  RunQueue,
  RunReleaseOptions,
  RunSchedule,
} from "../agent/durable/run-queue.js";
export {
  type FinishedCallStatus,
  type OutcomeUnknownCall,
  type PendingCallPhase,
  type PendingToolCall,
  type RunBudgetState,
  type RunStateStatus,
  runStateFormat,
  runStateVersion,
} from "../agent/durable/run-state.js";
export type {
  CallStart,
  CallStartOutcome,
  FinishedCall,
  RunDeleteOptions,
  RunList,
  RunListOptions,
  RunSaveOptions,
  RunSummary,
} from "../agent/durable/run-store.js";
export type { RunWorkerOutcome, RunWorkerStopOptions } from "../agent/durable/run-worker.js";
export type { AgentLoopOptions } from "../agent/loop-options.js";
export type {
  AgentRequestOptions,
  PrepareStep,
  PrepareStepContext,
  StepPreparation,
} from "../agent/prepare-step.js";
export { type RefusalCode, refusalCodes } from "../agent/refusal-code.js";
export type { BudgetExtension, BudgetLimit, RunBudget } from "../agent/run-budget.js";
export type { RunLoopOverrides } from "../agent/run-options.js";
export type {
  RunOutcome,
  RunStatus,
  RunStep,
  RunUsage,
  ToolCallRecordBase,
  ToolCallStatus,
} from "../agent/run-result.js";
export type { AgentInput } from "../agent/start-conversation.js";
export type {
  StopCondition,
  StopConditionContext,
  StopWhen,
} from "../agent/stop-conditions.js";
export type { OutputOf, OutputSchema } from "../agent/structured-output.js";
export type {
  TracingOptions,
  TracingSpan,
  TracingTracer,
} from "../agent/tracing/tracing-options.js";
export type { ApprovalMessagingClient } from "../approvers/messaging/approval-messaging-client.js";
export { defaultApprovalTimeoutMs } from "../approvers/messaging/messaging-approver-options.js";
export type { AuditLogEntry, JsonlAuditLogOptions } from "../stores/jsonl-audit-log.js";
