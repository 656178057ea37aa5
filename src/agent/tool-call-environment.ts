import type { Logger } from "pino";
import type { RequestSlots } from "../internal/http/request-slots.js";
import type { SecretRegistry } from "../internal/redact.js";
import type { AnyTool } from "../tools/tool.js";
import type { AgentEventSink } from "./agent-events.js";
import type { ApprovalAuditSinks } from "./approval/approval-audit-record.js";
import type { ApprovalExpiryAction } from "./approval/approval-expiry.js";
import type { ApproverDirectory } from "./approval/approver-directory.js";
import type { CompiledApprovalPolicy } from "./approval/compile-approval-policy.js";
import type { RunStarter } from "./approval/run-starter.js";
import type { StepQuestionSeat } from "./approval/step-question.js";
import type { ApprovalContext, Approver } from "./approver.js";
import type { RunJournal } from "./durable/run-journal.js";
import type { ToolCallRecord } from "./run-result.js";

/** What running the tool calls of one step needs from the agent and the run. */
export interface ToolCallEnvironment {
  tools: ReadonlyMap<string, AnyTool>;
  approver: Approver | undefined;
  /** Binds an interaction to its question in the run store, for the approver (`ApprovalContext.bindInteraction`). */
  bindInteraction?: ApprovalContext["bindInteraction"] | undefined;
  /** Who may approve (`AgentOptions.approverDirectory`); absent: answers count as the approver gives them. */
  approverDirectory?: ApproverDirectory | undefined;
  /** Who started the run, as the directory knows them; absent when unknown or without a directory. */
  starter?: RunStarter | undefined;
  /** The agent's policy: decides, before anyone is asked, whether a call runs, is refused or asks. */
  approvalPolicy: CompiledApprovalPolicy;
  /** What happens when nobody answers a question before it expires. */
  onApprovalExpired: ApprovalExpiryAction;
  /** Where each decision's audit record goes (the agent's `auditLog` and `onApprovalDecided`). */
  audit: ApprovalAuditSinks;
  /** The run's signal (or the step's, which follows it); {@link neverAborted} when the caller gave none. */
  signal: AbortSignal;
  logger: Logger;
  toolTimeoutMs: number;
  toolConcurrency: number;
  stepNumber: number;
  emit: AgentEventSink;
  /** The run's record: phases of the open step's calls, saved before destructive calls start. */
  journal: RunJournal;
  /** Ask the approver with `allowPending`; a pending answer leaves the call `awaiting_approval`. */
  suspendOnApproval: boolean;
  /** The agent's callback for each settled call. */
  onToolCallSettled?:
    | ((record: ToolCallRecord, context: { stepNumber: number }) => void | Promise<void>)
    | undefined;
  /** Every secret the agent knows of. */
  secrets: SecretRegistry;
  /** Longest tool message sent to the model. */
  maxToolResultChars: number;
  /** This call's place in its step's one question, when the step's gated calls are asked together. */
  stepQuestion?: StepQuestionSeat | undefined;
  /** The step's tool runs, at most `toolConcurrency` at once, when its calls are asked together. */
  toolSlots?: RequestSlots | undefined;
}
