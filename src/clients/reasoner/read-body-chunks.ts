import { onAbort } from "../../internal/http/on-abort.js";
import type { BodyReader } from "../../internal/http/transport.js";

/** How {@link readBodyChunks} ends a read that went wrong. */
export interface BodyReadOptions {
  /** Longest wait for the next bytes while the reader is waiting on the network. */
  idleTimeoutMs: number;
  signal?: AbortSignal | undefined;
  /** The error for a gap longer than `idleTimeoutMs`. */
  idleTimeoutError(): Error;
  /** The error once `signal` fired. */
  abortedError(): Error;
  /** Maps a failed read (a broken connection) to a typed error. */
  readError(error: unknown): Error;
}

/**
 * The bytes of a response body as they arrive. The idle timer runs only
 * while waiting on the network, not while the consumer handles a chunk, and
 * both it and the caller's signal cancel the body read itself. Stopping the
 * iteration early cancels the body too.
 */
export async function* readBodyChunks(
  reader: BodyReader,
  options: BodyReadOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  const { signal } = options;
  let reading = false;
  let stopped: "idle" | "aborted" | undefined;
  const cancel = () => reader.cancel();
  const timer = setTimeout(() => {
    if (!reading) return;
    stopped ??= "idle";
    cancel();
  }, options.idleTimeoutMs);
  const stopWatching = signal
    ? onAbort(signal, () => {
        stopped = "aborted";
        cancel();
      })
    : undefined;
  const stopError = (): Error | undefined => {
    if (signal?.aborted || stopped === "aborted") return options.abortedError();
    if (stopped === "idle") return options.idleTimeoutError();
    return undefined;
  };
  let finished = false;
  try {
    if (signal?.aborted) throw options.abortedError();
    for (;;) {
      timer.refresh();
      reading = true;
      let result: Awaited<ReturnType<BodyReader["read"]>>;
      try {
        result = await reader.read();
      } catch (error) {
        throw stopError() ?? options.readError(error);
      } finally {
        reading = false;
      }
      const error = stopError();
      if (error) throw error;
      if (result.done) {
        finished = true;
        return;
      }
      yield result.value;
    }
  } finally {
    clearTimeout(timer);
    stopWatching?.();
    if (!finished) cancel();
  }
}
