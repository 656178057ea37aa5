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
