import type { RecognisedApprover } from "../agent/approval/approver-directory.js";
import type { ApprovalRecord } from "../agent/approval-gate.js";
import type { RunResult, RunStatus, RunUsage, ToolCallRecord } from "../agent/run-result.js";
import { redactText, redactValue } from "../internal/redact.js";
import type { ServiceName } from "./read-service-settings.js";
import type { ServiceOrigin } from "./resolve-services.js";

/** One model call of the run, summarised. */
export interface RunReportStep {
  step: number;
  finishReason: string | null;
  /** The assistant's text of this step ("" when it only called tools). */
  text: string;
  /** Names of the tools it called, in order. */
  toolCalls: string[];
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number };
}

/** One tool call and its outcome. */
export interface RunReportToolCall {
  step: number;
  id: string;
  name: string;
  status: ToolCallRecord["status"];
  /**
   * The arguments the model sent (parsed when they were JSON); for a call
   * the person changed before approving it, what ran instead (its
   * approval's `editedArguments`).
   */
  arguments: unknown;
  /** What the model was told: the tool's result when it succeeded. */
  result?: unknown;
  /**
   * Why it did not succeed: the code and what happened (none while awaiting
   * approval). For a refused approval, the refusal's reason, never the
   * instructions the model was given with it.
   */
  error?: { code: string; message: string };
}

/** One decision of the approval gate. */
export interface RunReportApproval {
  step: number;
  toolCallId: string;
  tool: string;
  outcome: ApprovalRecord["outcome"];
  /** Why it was refused: `denied`, `policy_denied`, ... */
  code?: string;
  /** Why it was refused or expired, in words. */
  reason?: string;
  /** The approval policy's rule that decided without asking anyone. */
  rule?: string;
  /** What the person wrote with their answer, when anything. */
  note?: string;
  /** The agent's id of the approval, when an approver was asked (or a standing approval used). */
  approvalId?: string;
  /** The approver's interaction that carried the question, when it names one. */
  interactionId?: string;
  approvedBy?: string;
  /**
   * With an approver directory: each person who answered, by directory id
   * and the channel evidence that recognised them (the local user at the
   * terminal, a subscription link).
   */
  people?: RecognisedApprover[];
  /** The person changed the action before approving it: the arguments that ran instead. */
  editedArguments?: unknown;
  /** `sha256:` fingerprint of the tool name and arguments the decision binds to. */
  fingerprint: string;
  /** How long the approver took, when it was asked during this run. */
  waitedMs?: number;
  /** The person also approved the next calls like this one: how many more, and until when. */
  standing?: { maxCalls: number; until: string };
  /** No one was asked: the standing approval of this approval id covered the call (use `use` of `maxCalls`). */
  coveredBy?: { approvalId: string; use: number; maxCalls: number };
}

/**
 * What `switchyard run --json` prints: one object with the outcome, the
 * answer, the steps, the usage, every tool call and approval, and where each
 * service was. Secrets are scrubbed; service addresses carry no credentials.
 */
export interface RunReport {
  example: string;
  task: string;
  /**
   * `suspended` only with `run --no-wait` and `resume`: an approval is
   * pending (its entry in `approvals` has outcome `pending`).
   */
  status: RunStatus;
  /** The saved run's id, for `switchyard resume`; only for runs that are saved. */
  runId?: string;
  output: string;
  /** Why the run did not complete. */
  error?: { name: string; message: string };
  durationMs: number;
  usage: RunUsage;
  steps: RunReportStep[];
  toolCalls: RunReportToolCall[];
  approvals: RunReportApproval[];
  services: Record<ServiceName, { simulated: boolean; url: string }>;
}

/** What the report needs besides the result. */
export interface RunReportContext {
  example: string;
  task: string;
  durationMs: number;
  origins: Record<ServiceName, ServiceOrigin>;
  /** Approval wait times by tool call id. */
  approvalWaits?: ReadonlyMap<string, number>;
}

/** Builds the `--json` report of a run. */
export function buildRunReport(result: RunResult, context: RunReportContext): RunReport {
  const toolCalls: RunReportToolCall[] = [];
  const approvals: RunReportApproval[] = [];
  const steps = result.steps.map((step): RunReportStep => {
    for (const call of step.toolCalls) {
      toolCalls.push(describeToolCall(step.stepNumber, call));
      if (call.approval) {
        approvals.push(
          describeApproval(step.stepNumber, call, call.approval, context.approvalWaits),
        );
      }
    }
    const usage = step.usage;
    return {
      step: step.stepNumber,
      finishReason: step.finishReason,
      text: redactText(step.message.content ?? ""),
      toolCalls: step.toolCalls.map((call) => call.toolName),
      ...(usage
        ? {
            usage: {
              promptTokens: usage.prompt_tokens ?? 0,
              completionTokens: usage.completion_tokens ?? 0,
              totalTokens: usage.total_tokens ?? 0,
            },
          }
        : {}),
    };
  });
  const services = Object.fromEntries(
    Object.entries(context.origins).map(([service, origin]) => [
      service,
      { simulated: origin.simulated, url: origin.url },
    ]),
  ) as RunReport["services"];
  return {
    example: context.example,
    task: redactText(context.task),
    status: result.status,
    ...(result.runId !== undefined ? { runId: result.runId } : {}),
    output: redactText(result.output),
    ...(result.error
      ? { error: { name: result.error.name, message: redactText(result.error.message) } }
      : {}),
    durationMs: Math.round(context.durationMs),
    usage: { ...result.usage },
    steps,
    toolCalls,
    approvals,
    services,
  };
}

function describeToolCall(step: number, call: ToolCallRecord): RunReportToolCall {
  const content = parseJson(call.content);
  const report: RunReportToolCall = {
    step,
    id: call.toolCallId,
    name: call.toolName,
    status: call.status,
    arguments: redactValue(call.arguments ?? parseJson(call.rawArguments) ?? call.rawArguments),
  };
  if (call.status === "succeeded") {
    report.result = redactValue(content ?? call.content);
  } else if (call.status === "refused" && call.approval?.outcome === "refused") {
    // What the person decided, not the instructions the model was given with it.
    report.error = {
      code: "approval_refused",
      message: redactText(`Not run: ${call.approval.reason}`),
    };
  } else if (call.status !== "awaiting_approval") {
    const told = (content ?? {}) as { error?: unknown; message?: unknown };
    report.error = {
      code: typeof told.error === "string" ? told.error : call.status,
      message: redactText(
        typeof told.message === "string"
          ? told.message
          : "error" in call
            ? call.error.message
            : call.status,
      ),
    };
  }
  return report;
}

function describeApproval(
  step: number,
  call: ToolCallRecord,
  approval: ApprovalRecord,
  waits: ReadonlyMap<string, number> | undefined,
): RunReportApproval {
  const waitedMs = waits?.get(call.toolCallId);
  return {
    step,
    toolCallId: call.toolCallId,
    tool: call.toolName,
    outcome: approval.outcome,
    ...(approval.outcome === "refused"
      ? {
          code: approval.code,
          reason: redactText(approval.reason),
          ...(approval.note !== undefined ? { note: redactText(approval.note) } : {}),
        }
      : {}),
    ...(approval.outcome === "expired" ? { reason: redactText(approval.reason) } : {}),
    ...(approval.approvalId !== undefined ? { approvalId: approval.approvalId } : {}),
    ...(approval.interactionId !== undefined ? { interactionId: approval.interactionId } : {}),
    ...(approval.outcome === "approved" && approval.approvedBy !== undefined
      ? { approvedBy: approval.approvedBy }
      : {}),
    ...(approval.outcome === "approved" && approval.note !== undefined
      ? { note: redactText(approval.note) }
      : {}),
    ...((approval.outcome === "approved" || approval.outcome === "refused") &&
    approval.people !== undefined
      ? { people: approval.people.map((person) => ({ ...person })) }
      : {}),
    ...(approval.outcome === "approved" && approval.edited !== undefined
      ? { editedArguments: redactValue(approval.edited.arguments) }
      : {}),
    ...((approval.outcome === "approved" || approval.outcome === "refused") &&
    approval.rule !== undefined
      ? { rule: approval.rule }
      : {}),
    fingerprint: approval.fingerprint,
    ...(waitedMs !== undefined ? { waitedMs: Math.round(waitedMs) } : {}),
    ...(approval.outcome === "approved" && approval.standing !== undefined
      ? { standing: { maxCalls: approval.standing.maxCalls, until: approval.standing.until } }
      : {}),
    ...(approval.outcome === "approved" && approval.coveredBy !== undefined
      ? {
          coveredBy: {
            approvalId: approval.coveredBy.approvalId,
            use: approval.coveredBy.use,
            maxCalls: approval.coveredBy.maxCalls,
          },
        }
      : {}),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
