import type { CliIo } from "./cli-io.js";

/**
 * First Ctrl-C or SIGTERM aborts the run through `controller`; a second one
 * exits at once. Returns the function that removes the handlers.
 */
export function handleStopSignals(controller: AbortController, io: CliIo): () => void {
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.exit(130);
    }
    io.stderr.write(`\n${name}: stopping the run (again to quit at once)...\n`);
    controller.abort(new Error(`Stopped by ${name}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}

/**
 * The signal a command's run obeys: the caller's, if any, and Ctrl-C /
 * SIGTERM when `handleSignals` is set. Call `release()` when the run ends.
 */
export function commandSignal(
  options: { signal?: AbortSignal | undefined; handleSignals?: boolean | undefined },
  io: CliIo,
): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const signal = options.signal
    ? AbortSignal.any([options.signal, controller.signal])
    : controller.signal;
  const release = options.handleSignals ? handleStopSignals(controller, io) : () => {};
  return { signal, release };
}
