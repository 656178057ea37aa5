/** The callers waiting on one signal, behind its single listener. */
interface Watchers {
  callbacks: Set<() => void>;
  listener: () => void;
}

const watched = new WeakMap<AbortSignal, Watchers>();

/**
 * Calls `callback` once when `signal` fires; returns what stops it. However
 * many requests share a signal (one per run in flight, a worker's shutdown
 * signal), the signal carries one listener of ours, so a signal held to
 * Node's usual limit of 10 listeners never warns of a leak, and a long-lived
 * signal keeps nothing once its requests are done.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let watchers = watched.get(signal);
  if (!watchers) {
    const callbacks = new Set<() => void>();
    const listener = () => {
      watched.delete(signal);
      for (const waiting of callbacks) waiting();
      callbacks.clear();
    };
    watchers = { callbacks, listener };
    watched.set(signal, watchers);
    signal.addEventListener("abort", listener, { once: true });
  }
  const { callbacks, listener } = watchers;
  // A wrapper of our own: the same callback given twice is two subscriptions.
  const subscription = () => callback();
  callbacks.add(subscription);
  return () => {
    if (!callbacks.delete(subscription) || callbacks.size > 0) return;
    if (watched.get(signal)?.callbacks === callbacks) watched.delete(signal);
    signal.removeEventListener("abort", listener);
  };
}
