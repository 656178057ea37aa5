/**
 * The signal of every run whose caller gave none: it can never fire, so one
 * is shared, and the loop skips the listeners it would add to it (on each
 * model call, each tool call). It is never handed to code outside the agent,
 * where a listener left on it would live as long as the process: the model
 * is then called without a signal, an approver gets a signal of its own, and
 * a tool gets its own per-call signal as always.
 */
export const neverAborted: AbortSignal = new AbortController().signal;

/** A signal to hand to code outside the agent: `signal`, or a fresh one for {@link neverAborted}. */
export function signalForCallee(signal: AbortSignal): AbortSignal {
  return signal === neverAborted ? new AbortController().signal : signal;
}
