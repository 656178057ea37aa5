import { monitorEventLoopDelay } from "node:perf_hooks";
import { Agent } from "../src/agent/agent.js";
import { ReasonerClient } from "../src/clients/reasoner/reasoner-client.js";
import { echoResult, echoTask, echoTool } from "./echo-tool.js";
import { type FigureResult, round } from "./figure.js";
import { runRawAgentLoop } from "./raw-agent-loop.js";
import { median } from "./statistics.js";

/** Options of {@link measureScale}. */
export interface ScaleOptions {
  /** The reasoner simulator playing `echo-tool`. */
  url: string;
  apiKey: string;
  /** Runs started at once. */
  concurrency: number;
  /** Times the whole batch runs; wall time is their median. */
  repetitions: number;
  /** The client's `maxConcurrentRequests`; unlimited (the default) when omitted. */
  maxConcurrentRequests?: number | undefined;
  /** Run the hand-written `fetch` loop instead of the library: the floor. @default false */
  baseline?: boolean | undefined;
}

/** Most resident memory the process may reach. */
export const scaleRssTargetMb = 250;
/** Most the event loop may lag, at the 99th percentile. */
export const scaleLoopDelayTargetMs = 50;

/**
 * Figure 3: `concurrency` two-step agent runs started at once in this
 * process, all through one ReasonerClient: wall time per batch, the
 * process's peak RSS, and the event loop's delay at the 99th percentile
 * (perf_hooks.monitorEventLoopDelay) while they run; with `baseline`, the
 * same for the hand-written `fetch` loop, the floor. Run it in a fresh
 * process: peak RSS is the process's own (`resourceUsage().maxRSS`).
 */
export async function measureScale(options: ScaleOptions): Promise<FigureResult> {
  const model = new ReasonerClient({
    url: options.url,
    apiKey: options.apiKey,
    maxConcurrentRequests: options.maxConcurrentRequests,
  });
  const label = `scale: ${options.concurrency} concurrent runs, ${
    options.baseline
      ? "hand-written fetch loop"
      : options.maxConcurrentRequests === undefined
        ? "default client"
        : `maxConcurrentRequests ${options.maxConcurrentRequests}`
  }`;
  const agent = new Agent({ model, tools: [echoTool] });
  const raw = {
    url: options.url,
    apiKey: options.apiKey,
    tools: agent.toolDefinitions,
    execute: async (_name: string, args: unknown) => echoResult(args),
    stream: false,
    maxSteps: 10,
  };
  const runOne = async (): Promise<boolean> => {
    if (options.baseline) return (await runRawAgentLoop(echoTask, raw)) === "done";
    const result = await agent.run(echoTask);
    return result.status === "completed" && result.output === "done";
  };
  const runBatch = async (size: number) => {
    const results = await Promise.all(Array.from({ length: size }, runOne));
    return results.filter(Boolean).length;
  };
  // Warm-up: the JIT, and connections opened at a tenth of the load.
  await runBatch(Math.max(1, Math.floor(options.concurrency / 10)));

  const delay = monitorEventLoopDelay({ resolution: 10 });
  let sampledPeak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
  }, 10);
  const walls: number[] = [];
  let completed = 0;
  try {
    for (let repetition = 0; repetition < options.repetitions; repetition++) {
      delay.enable();
      const started = performance.now();
      completed += await runBatch(options.concurrency);
      walls.push(performance.now() - started);
      delay.disable();
    }
  } finally {
    clearInterval(sampler);
    delay.disable();
  }
  const runs = options.concurrency * options.repetitions;
  if (completed !== runs) {
    throw new Error(`only ${completed} of ${runs} concurrent runs completed`);
  }
  const peakRssMb = Math.max(sampledPeak, process.resourceUsage().maxRSS * 1024) / (1024 * 1024);
  const p99Ms = delay.percentile(99) / 1e6;
  return {
    figures: [
      {
        name: `${label}: wall time`,
        value: round(median(walls), 1),
        unit: "ms",
      },
      {
        name: `${label}: peak RSS`,
        value: round(peakRssMb, 1),
        unit: "MB",
        // The targets are the library's; the hand-written floor is information.
        ...(options.baseline
          ? {}
          : { target: `< ${scaleRssTargetMb} MB`, met: peakRssMb < scaleRssTargetMb }),
      },
      {
        name: `${label}: event-loop delay p99`,
        value: round(p99Ms, 2),
        unit: "ms",
        ...(options.baseline
          ? {}
          : { target: `< ${scaleLoopDelayTargetMs} ms`, met: p99Ms < scaleLoopDelayTargetMs }),
      },
    ],
    counts: { runs, completedRuns: completed },
  };
}
