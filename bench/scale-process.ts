/**
 * Child process of the bench for figure 3, so that peak RSS and event-loop
 * delay are this workload's alone. Arguments: reasoner URL, API key,
 * concurrency, repetitions, and optionally the client's maxConcurrentRequests
 * or `baseline` for the hand-written fetch loop. Prints the FigureResult as
 * one JSON line, then exits when its stdin closes.
 */
import { measureScale } from "./scale.js";
import { exitWhenStdinCloses } from "./spawn-ts-process.js";

const [url, apiKey, concurrency, repetitions, maxConcurrentRequests] = process.argv.slice(2);
if (!url || !apiKey) {
  process.stderr.write(
    "usage: scale-process.ts <url> <apiKey> <concurrency> <repetitions> [maxConcurrentRequests|baseline]\n",
  );
  process.exit(2);
}
const result = await measureScale({
  url,
  apiKey,
  concurrency: Number(concurrency ?? "1000"),
  repetitions: Number(repetitions ?? "3"),
  baseline: maxConcurrentRequests === "baseline",
  maxConcurrentRequests:
    maxConcurrentRequests === undefined || maxConcurrentRequests === "baseline"
      ? undefined
      : Number(maxConcurrentRequests),
});
process.stdout.write(`${JSON.stringify(result)}\n`);
exitWhenStdinCloses(async () => {});
