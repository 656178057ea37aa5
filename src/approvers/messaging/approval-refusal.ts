import type { RefusedDecision } from "../../agent/approver.js";
import type { RefusalCode } from "../../agent/refusal-code.js";
import { AbortedError } from "../../errors/transport-errors.js";
import { redactText } from "../../internal/redact.js";

/** A refusal with its reason (and the person's note) scrubbed of secrets: the model reads it. */
export function refusal(
  code: RefusalCode,
  reason: string,
  interactionId?: string,
  note?: string,
): RefusedDecision {
  return {
    outcome: "refused",
    code,
    reason: redactText(reason),
    ...(note !== undefined ? { note: redactText(note) } : {}),
    ...(interactionId !== undefined ? { interactionId } : {}),
  };
}

/** Throws `AbortedError` when `signal` has fired. */
export function throwIfAborted(signal: AbortSignal, toolName: string, cause?: unknown): void {
  if (signal?.aborted) {
    throw new AbortedError(`Asking for approval of "${toolName}" was aborted by the caller`, {
      cause: cause ?? signal.reason,
    });
  }
}

/** A wait in words, e.g. `80 ms`, `45 seconds`, `10 minutes`. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1_000) return `${milliseconds} ms`;
  const seconds = Math.round(milliseconds / 1_000);
  if (seconds < 120) return `${seconds} seconds`;
  return `${Math.round(seconds / 60)} minutes`;
}
