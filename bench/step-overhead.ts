import type { RunResult } from "../src/agent/run-result.js";
import { echoResult, echoTask, makeEchoTool } from "./echo-tool.js";
import { cpuFigure, type Figure, type FigureResult, round } from "./figure.js";
import { measureInterleaved } from "./interleave.js";
import { type LibrarySource, loadLibrary } from "./library.js";
import { runRawAgentLoop } from "./raw-agent-loop.js";
import { median } from "./statistics.js";

/** Options of {@link measureStepOverhead}. */
export interface StepOverheadOptions {
  /** The reasoner simulator playing `echo-tool`, or the scripted chat server. */
  url: string;
  apiKey: string;
  /**
   * `simulator` (the default): the library against the `fetch` floor and
   * the pooled floor, its first runs timed too. `scripted`: the server
   * answering at once (bench/scripted-chat-server.ts), the library against
   * the pooled floor only, at steady speed (after the simulator's figures,
   * the process is warm); the figures' names say so.
   */
  server?: "simulator" | "scripted" | undefined;
  /** Timed runs of each contender first, in a process that ran none yet (the simulator only). */
  coldRuns: number;
  /** Untimed runs of each contender after those. */
  warmup: number;
  runs: number;
  /** The library measured: the built package (the default), or its sources through tsx. */
  library?: LibrarySource | undefined;
}

/** Most the library may cost over the hand-written `fetch` loop. */
export const stepOverheadTarget = 1.0;

/** Most the library may cost over the same loop written by hand over a pooled `node:http` Agent. */
export const pooledStepOverheadTarget = 1.25;

/**
 * Figure 1: a two-step run (one tool call, then the answer) through Agent +
 * ReasonerClient + a trivial tool, against two hand-written loops doing the
 * same work: over `fetch` (the floor the target is set against) and over a
 * pooled `node:http` Agent (the transport the library uses), whole answers
 * and streamed, interleaved. Median ms per run and the ratios.
 *
 * The targets are judged at steady speed: after `warmup` runs of each
 * contender, when V8 has optimized the library's code (it has far more of
 * it than a hand-written loop, and reaches its steady speed after a few
 * thousand runs; the floors after a few hundred). The first `coldRuns` of
 * the process are timed too and reported against the pooled floor without
 * a target: what a short-lived process pays.
 *
 * The library is the built package (`dist/`, what users install) unless
 * `library` says `sources`; the floors share only the tool's work with it.
 */
export async function measureStepOverhead(options: StepOverheadOptions): Promise<FigureResult> {
  const { Agent, ReasonerClient, defineTool } = await loadLibrary(options.library);
  const model = new ReasonerClient({ url: options.url, apiKey: options.apiKey });
  const agent = new Agent({ model, tools: [makeEchoTool(defineTool)] });
  const raw = (stream: boolean, transport: "fetch" | "pooled") => ({
    url: options.url,
    apiKey: options.apiKey,
    tools: agent.toolDefinitions,
    execute: async (_name: string, args: unknown) => echoResult(args),
    stream,
    transport,
    maxSteps: 10,
  });
  const rawComplete = raw(false, "fetch");
  const rawStream = raw(true, "fetch");
  const pooledComplete = raw(false, "pooled");
  const pooledStream = raw(true, "pooled");
  const counts = { libraryRuns: 0, libraryRunsCompleted: 0, baselineRuns: 0, toolCalls: 0 };
  const check = (result: RunResult) => {
    counts.libraryRuns++;
    const calls = result.steps.flatMap((step) => step.toolCalls);
    counts.toolCalls += calls.filter((call) => call.status === "succeeded").length;
    if (result.status !== "completed" || result.steps.length !== 2 || result.output !== "done") {
      throw new Error(
        `the agent run ended ${result.status}: ${result.error?.message ?? result.output}`,
      );
    }
    counts.libraryRunsCompleted++;
  };
  const checkRaw = (output: string) => {
    counts.baselineRuns++;
    if (output !== "done") throw new Error(`the hand-written loop answered "${output}"`);
  };

  const libraryComplete = async () => check(await agent.run(echoTask));
  const libraryStream = async () => {
    const stream = agent.stream(echoTask);
    for await (const _event of stream) {
      // Events are read as a user's loop would; the figure is the whole run.
    }
    check(await stream.result);
  };
  const pooledFigure = (mode: string, pooledMs: number[], libraryMs: number[], suffix = "") => {
    const baseline = median(pooledMs);
    const value = median(libraryMs);
    const ratio = value / baseline;
    return {
      name: `agent step overhead (${mode}), against the pooled floor${suffix}`,
      value: round(value),
      unit: "ms/run",
      baseline: round(baseline),
      ratio: round(ratio),
      target: `ratio <= ${pooledStepOverheadTarget.toFixed(2)}`,
      met: ratio <= pooledStepOverheadTarget,
    } satisfies Figure;
  };

  if (options.server === "scripted") {
    const suffix = ", scripted server answering at once";
    const [pooled, library, pooledStreamed, libraryStreamed] = await measureInterleaved(
      [
        async () => checkRaw(await runRawAgentLoop(echoTask, pooledComplete)),
        libraryComplete,
        async () => checkRaw(await runRawAgentLoop(echoTask, pooledStream)),
        libraryStream,
      ],
      options,
    );
    return {
      figures: [
        pooledFigure("complete", pooled!.wallMs, library!.wallMs, suffix),
        cpuFigure(
          `agent step overhead (complete), against the pooled floor${suffix}`,
          pooled!,
          library!,
        ),
        pooledFigure("stream", pooledStreamed!.wallMs, libraryStreamed!.wallMs, suffix),
        cpuFigure(
          `agent step overhead (stream), against the pooled floor${suffix}`,
          pooledStreamed!,
          libraryStreamed!,
        ),
      ],
      counts,
    };
  }

  const contenders = [
    async () => checkRaw(await runRawAgentLoop(echoTask, rawComplete)),
    async () => checkRaw(await runRawAgentLoop(echoTask, pooledComplete)),
    libraryComplete,
    async () => checkRaw(await runRawAgentLoop(echoTask, rawStream)),
    async () => checkRaw(await runRawAgentLoop(echoTask, pooledStream)),
    libraryStream,
  ];
  const [, coldPooledComplete, coldLibraryComplete, , coldPooledStream, coldLibraryStream] =
    await measureInterleaved(contenders, { warmup: 0, runs: options.coldRuns });
  const [
    baselineComplete,
    pooledBaselineComplete,
    libraryCompleteMs,
    baselineStream,
    pooledBaselineStream,
    libraryStreamMs,
  ] = await measureInterleaved(contenders, options);
  const coldFigure = (mode: string, pooledMs: number[], libraryMs: number[]): Figure => {
    const baseline = median(pooledMs);
    const value = median(libraryMs);
    return {
      name: `agent step overhead (${mode}), against the pooled floor, first ${options.coldRuns} runs of a process`,
      value: round(value),
      unit: "ms/run",
      baseline: round(baseline),
      ratio: round(value / baseline),
    };
  };
  const figure = (mode: string, baselineMs: number[], libraryMs: number[]): Figure => {
    const baseline = median(baselineMs);
    const value = median(libraryMs);
    const ratio = value / baseline;
    return {
      name: `agent step overhead (${mode})`,
      value: round(value),
      unit: "ms/run",
      baseline: round(baseline),
      ratio: round(ratio),
      target: `ratio <= ${stepOverheadTarget.toFixed(2)}`,
      met: ratio <= stepOverheadTarget,
    };
  };
  return {
    figures: [
      figure("complete", baselineComplete!.wallMs, libraryCompleteMs!.wallMs),
      cpuFigure("agent step overhead (complete)", baselineComplete!, libraryCompleteMs!),
      pooledFigure("complete", pooledBaselineComplete!.wallMs, libraryCompleteMs!.wallMs),
      coldFigure("complete", coldPooledComplete!.wallMs, coldLibraryComplete!.wallMs),
      figure("stream", baselineStream!.wallMs, libraryStreamMs!.wallMs),
      cpuFigure("agent step overhead (stream)", baselineStream!, libraryStreamMs!),
      pooledFigure("stream", pooledBaselineStream!.wallMs, libraryStreamMs!.wallMs),
      coldFigure("stream", coldPooledStream!.wallMs, coldLibraryStream!.wallMs),
    ],
    counts,
  };
}
