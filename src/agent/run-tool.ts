import type { Logger } from "pino";
import { AbortedError } from "../errors/transport-errors.js";
import { LazyAbortController } from "../internal/lazy-abort-controller.js";
import { redactText } from "../internal/redact.js";
import type { AnyTool, ToolContext } from "../tools/tool.js";
import { decideByPolicy } from "./approval/approval-policy.js";
import { requirementOf } from "./approval/approver-requirement.js";
import type { ApproverCheck } from "./approval/check-approvers.js";
import { fingerprintOf } from "./approval/fingerprint-check.js";
import { toolApprovalAsk } from "./ask-tool-approval.js";
import { describeThrown } from "./describe-thrown.js";
import { ToolExecutionError, ToolTimeoutError } from "./errors.js";
import { neverAborted } from "./never-aborted.js";
import type { ToolCallRecord, ToolCallRecordBase } from "./run-result.js";
import { serializeToolResult } from "./serialize-tool-result.js";
import type { ToolCallEnvironment } from "./tool-call-environment.js";
import { toolContext } from "./tool-context.js";
import { toolMessages } from "./tool-messages.js";

/**
 * Runs a tool whose call was let through, within its timeout and the run's
 * signal: its result, or a record saying it timed out, failed (secrets
 * removed from the message) or was aborted. A tool that ignores its signal
 * does not hold the run: the wait ends when the signal fires.
 */
export async function runTool(
  tool: AnyTool,
  args: unknown,
  base: ToolCallRecordBase,
  environment: ToolCallEnvironment,
  logger: () => Logger,
): Promise<ToolCallRecord> {
  const runSignal = environment.signal;
  // Right before the side effect: a process whose claim lapsed (it stalled,
  // or lost the store) is no longer the run's holder and sends nothing.
  if (environment.journal.claimLapsed()) {
    return {
      ...base,
      status: "aborted",
      error: new AbortedError("The run's claim lapsed before the call was sent"),
      content: toolMessages.aborted(tool.name),
    };
  }
  const toolTimeoutMs = tool.timeoutMs ?? environment.toolTimeoutMs;
  // The tool's own signal, made if the tool reads it; fires on the timeout or the run's abort.
  const controller = new LazyAbortController();
  let stopWaiting: (reason: unknown) => void = () => {};
  const abort = (reason: unknown) => {
    controller.abort(reason);
    stopWaiting(reason);
  };
  const onRunAbort = runSignal === neverAborted ? undefined : () => abort(runSignal.reason);
  if (onRunAbort) runSignal.addEventListener("abort", onRunAbort, { once: true });
  // Built when it fires: an Error captures a stack, too dear for every call.
  let timeout: ToolTimeoutError | undefined;
  const timer = setTimeout(() => {
    timeout = new ToolTimeoutError({
      toolName: tool.name,
      toolCallId: base.toolCallId,
      timeoutMs: toolTimeoutMs,
    });
    abort(timeout);
  }, toolTimeoutMs);
  try {
    // Rejects as soon as the tool's signal fires, so a tool that ignores it cannot hold the run.
    const result = await new Promise((resolve, reject) => {
      stopWaiting = reject;
      const context = toolContext(
        controller,
        logger,
        base.toolCallId,
        // Made when the tool reads it: a digest per call is dear on the hot
        // path; the call's start record already holds its fingerprint.
        () =>
          environment.journal.idempotencyKey(
            base.toolCallId,
            environment.journal.pendingCall(base.toolCallId)?.fingerprint ??
              fingerprintOf(tool, args),
          ),
        askApprovalOf(environment, { tool, args, toolCallId: base.toolCallId }, controller, logger),
      );
      Promise.resolve(tool.execute(args, context)).then(resolve, reject);
    });
    let content: string;
    try {
      content = serializeToolResult(result);
    } catch (error) {
      content = toolMessages.unserializable(tool.name, redactText(describeThrown(error)));
    }
    return { ...base, status: "succeeded", result, content };
  } catch (error) {
    if (runSignal.aborted) {
      return {
        ...base,
        status: "aborted",
        error: new AbortedError("The run was aborted by the caller"),
        content: toolMessages.abortedWhileRunning(tool.name),
      };
    }
    if (timeout !== undefined && controller.reason === timeout) {
      return {
        ...base,
        status: "timed_out",
        error: timeout,
        content: toolMessages.timedOut(tool.name, toolTimeoutMs),
      };
    }
    const failure = new ToolExecutionError(
      { toolName: tool.name, toolCallId: base.toolCallId },
      { cause: error },
    );
    return {
      ...base,
      status: "failed",
      error: failure,
      content: toolMessages.failed(tool.name, redactText(describeThrown(error))),
    };
  } finally {
    clearTimeout(timer);
    if (onRunAbort) runSignal.removeEventListener("abort", onRunAbort);
  }
}

/** The tool's way to ask the run's approver mid-call; none when the run has no approver. */
function askApprovalOf(
  environment: ToolCallEnvironment,
  call: { tool: AnyTool; args: unknown; toolCallId: string },
  source: { readonly signal: AbortSignal },
  logger: () => Logger,
): ToolContext["askApproval"] {
  const { approver, approverDirectory: directory } = environment;
  if (approver === undefined) return undefined;
  const { toolCallId } = call;
  // With a directory, the tool's question is answered by whom the call's own question would be.
  const approverCheck = directory
    ? async (): Promise<ApproverCheck> => {
        const verdict = await decideByPolicy(
          environment.approvalPolicy,
          call.tool,
          call.args,
          logger,
        );
        return {
          directory,
          requirement:
            (verdict.decision === "ask" ? verdict.approvers : undefined) ??
            requirementOf(environment.approvalPolicy.defaultApprovers),
          starter: environment.starter,
          logger: logger(),
        };
      }
    : undefined;
  return toolApprovalAsk(approver, () => ({
    signal: source.signal,
    logger: logger(),
    toolCallId,
    runId: environment.journal.runId,
    bindInteraction: environment.bindInteraction,
    audit: environment.audit,
    ...(approverCheck ? { approverCheck } : {}),
  }));
}
