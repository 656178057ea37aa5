import type { Logger } from "pino";
import { redactedMarker, redactText } from "../../internal/redact.js";
import type { AnyTool } from "../../tools/tool.js";
import { abortable } from "../abortable.js";
import { fingerprintOf, sameFingerprint } from "../approval/fingerprint-check.js";
import { describeThrown } from "../describe-thrown.js";
import type { ToolCallRecord, ToolCallRecordBase } from "../run-result.js";
import { serializeToolResult } from "../serialize-tool-result.js";
import type { RunJournal } from "./run-journal.js";
import type { PendingToolCall } from "./run-state.js";

/** What reconciling a started call needs of the step's environment. */
export interface ReconcileEnvironment {
  tools: ReadonlyMap<string, AnyTool>;
  /** The run's signal: an abort stops the reconciling. */
  signal: AbortSignal;
  logger: Logger;
  /** The agent's tool timeout, for a tool without its own. */
  toolTimeoutMs: number;
  /** Gives the call's idempotency key, the one its interrupted run used. */
  journal: Pick<RunJournal, "idempotencyKey" | "claimLapsed">;
}

/**
 * A call a resumed run finds started and unfinished (its process died
 * during the call), settled by its tool's `reconcile`: the tool asks the
 * service what took effect and finishes what did not, and the call is
 * recorded `reconciled` with what it found. `undefined` when the tool has
 * no `reconcile`, the saved arguments lost a secret to redaction (they
 * cannot be used as they were), the call as the tool reads it now is not the
 * one that started (its fingerprint differs: another target, other
 * defaults), or the tool could not tell (it resolved
 * `undefined`, threw or timed out): the call is then of unknown outcome,
 * as before. The call is never run again through `execute`.
 */
export async function reconcileStartedCall(
  base: ToolCallRecordBase,
  prior: PendingToolCall,
  environment: ReconcileEnvironment,
): Promise<ToolCallRecord | undefined> {
  const tool = environment.tools.get(base.toolName);
  const saved = prior.arguments;
  if (!tool?.reconcile || saved === undefined) return undefined;
  if (JSON.stringify(saved).includes(redactedMarker)) return undefined;
  const checked = tool.checkArguments(saved);
  if (!checked.success) return undefined;
  // Only the very action that started: a tool redeployed with another target,
  // or a schema that now fills in other defaults, would act on what nobody approved.
  const fingerprint = fingerprintOf(tool, checked.data);
  if (
    prior.fingerprint === undefined ||
    fingerprint === undefined ||
    !sameFingerprint(fingerprint, prior.fingerprint)
  ) {
    return undefined;
  }
  // Reconciling acts on the service too: only while this process holds the run.
  if (environment.journal.claimLapsed()) return undefined;
  const timeoutMs = tool.timeoutMs ?? environment.toolTimeoutMs;
  const signal = AbortSignal.any([environment.signal, AbortSignal.timeout(timeoutMs)]);
  const logger = environment.logger.child({ tool: base.toolName, toolCallId: base.toolCallId });
  let found: Awaited<ReturnType<NonNullable<typeof tool.reconcile>>>;
  try {
    // Stops waiting at the timeout even for a reconcile that ignores its signal.
    found = await abortable(
      tool.reconcile(checked.data, {
        signal,
        logger,
        toolCallId: base.toolCallId,
        idempotencyKey: environment.journal.idempotencyKey(base.toolCallId, fingerprint),
      }),
      signal,
    );
  } catch (error) {
    logger.warn(
      { err: error },
      `could not reconcile ${base.toolName}: ${redactText(describeThrown(error))}; its outcome stays unknown`,
    );
    return undefined;
  }
  if (found === undefined || typeof found.summary !== "string") return undefined;
  const summary = redactText(found.summary);
  logger.info(
    {
      audit: "tool-call",
      tool: base.toolName,
      toolCallId: base.toolCallId,
      outcome: "reconciled",
      ...(prior.interactionId !== undefined ? { interactionId: prior.interactionId } : {}),
    },
    `reconciled: ${base.toolName} had started before the run was interrupted; the service says: ${summary}`,
  );
  return {
    ...base,
    arguments: saved,
    status: "reconciled",
    result: found.result,
    content: serializeToolResult({
      reconciled: true,
      message: `The call to ${base.toolName} had started when the run was interrupted, and no result was recorded. It was not run again blindly: its outcome was checked with the service, and what had not taken effect was done now (${summary}). The result below is the outcome as of now; do not call ${base.toolName} again for the same items.`,
      result: found.result,
    }),
  };
}
