import { AbortedError } from "../errors/transport-errors.js";
import { neverAborted } from "./never-aborted.js";

/**
 * Settles like `promise`, or rejects as soon as `signal` fires, so a callee
 * that ignores its signal cannot hold the run. The abandoned promise's
 * rejection is absorbed. For {@link neverAborted}, the promise as it is.
 */
export function abortable<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  const settled = Promise.resolve(promise);
  if (signal === neverAborted) return settled;
  if (signal.aborted) {
    settled.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      settled.catch(() => {});
      reject(abortReason(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    settled.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** The signal's reason when it is an Error, else an `AbortedError`. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error && signal.reason.name !== "AbortError"
    ? signal.reason
    : new AbortedError("The run was aborted by the caller", { cause: signal.reason });
}
