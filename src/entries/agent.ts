/**
 * `switchyard-agents/agent`: what a run is made of, for code that reads results,
 * approvals and saved runs closely: step and tool call records, approval
 * decisions and records, the saved run state and the run store's types.
 *
 * @module switchyard-agents/agent
 */

export type { ActionView } from "../agent/approval/action-view.js";
export type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
export type { DefaultApprovers } from "../agent/approval/approval-rule.js";
export {
  type ApproverDirectory,
  type ApproverIdentity,
  type ApproverPerson,
  approverDirectory,
  loadApproverDirectory,
  type RecognisedApprover,
} from "../agent/approval/approver-directory.js";
export type {
  AuditLog,
  AuditLogHead,
  AuditLogVerification,
} from "../agent/approval/audit-log.js";
export type {
  StandingApprovalOffer,
  StandingScope,
} from "../agent/approval/standing-approval.js";
export type { ApprovalRecord } from "../agent/approval-gate.js";
export type { ApprovalPeek, WhoMayApprove } from "../agent/approver.js";
export { InMemoryRunStore } from "../agent/durable/in-memory-run-store.js";
export { parseRunState, serializeRunState } from "../agent/durable/parse-run-state.js";
export type {
  RunClaim,
  RunClaimDueOptions,
  RunClaimOptions,
  RunDueWaitOptions,
  RunQueue,
  RunReleaseOptions,
  RunSchedule,
} from "../agent/durable/run-queue.js";
export type {
  OutcomeUnknownCall,
  PendingToolCall,
  RunBudgetState,
  RunStateStatus,
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
export type { RunWorkerOutcome } from "../agent/durable/run-worker.js";
export type { PrepareStep } from "../agent/prepare-step.js";
export { type RefusalCode, refusalCodes } from "../agent/refusal-code.js";
export type { RunBudget } from "../agent/run-budget.js";
export type {
  RunOutcome,
  RunStatus,
  RunStep,
  RunUsage,
  ToolCallStatus,
} from "../agent/run-result.js";
export type { AgentInput } from "../agent/start-conversation.js";
export type { StopCondition, StopWhen } from "../agent/stop-conditions.js";
export type { OutputOf, OutputSchema } from "../agent/structured-output.js";
export type {
  TracingOptions,
  TracingSpan,
  TracingTracer,
} from "../agent/tracing/tracing-options.js";
export type { AuditLogEntry, JsonlAuditLogOptions } from "../stores/jsonl-audit-log.js";
