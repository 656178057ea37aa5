import { setTimeout as sleep } from "node:timers/promises";
import type { RunWorker } from "../../src/agent/durable/run-worker.js";

/** Waits until `condition` holds, looking every 10 ms; throws naming `what` after 30 s. */
export async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 30_000) throw new Error(`gave up waiting for ${what}`);
    await sleep(10);
  }
}

/** Runs the worker until `condition` (see {@link until}), then stops it, on every way out. */
export async function workUntil(
  worker: RunWorker,
  condition: () => boolean,
  what: string,
): Promise<void> {
  const working = worker.start();
  try {
    await until(condition, what);
  } finally {
    await worker.stop();
    await working;
  }
}
