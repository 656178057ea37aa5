import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseBenchOptions } from "../../bench/bench-options.js";
import { measureBulkDelete } from "../../bench/bulk-delete.js";
import { measureDbosFleet } from "../../bench/dbos-fleet.js";
import { type EngineFigures, formatEngines } from "../../bench/engine-figures.js";
import type { Figure, FigureResult } from "../../bench/figure.js";
import { measureFleet } from "../../bench/fleet.js";
import { formatTable } from "../../bench/format-table.js";
import { measureImportTime } from "../../bench/import-time.js";
import { readMachineInfo } from "../../bench/machine-info.js";
import { measureScale } from "../../bench/scale.js";
import { spawnTsProcess } from "../../bench/spawn-ts-process.js";
import {
  type SimulatorProcess,
  startSimulatorProcess,
} from "../../bench/start-simulator-process.js";
import { measureStepOverhead } from "../../bench/step-overhead.js";
import { measureStreamReading } from "../../bench/stream-reading.js";
import { measureToolFanOut } from "../../bench/tool-fan-out.js";
import { measureWaitingRuns } from "../../bench/waiting-runs.js";

// Every figure function at minimal sizes: the JSON shape and the counts
// behind each figure are checked, never the timings.

let simulators: SimulatorProcess;

beforeAll(async () => {
  simulators = await startSimulatorProcess({ longStreamChunks: 50 });
});

afterAll(async () => {
  await simulators?.stop();
});

function expectFigureShape(figure: Figure): void {
  expect(typeof figure.name).toBe("string");
  expect(Number.isFinite(figure.value)).toBe(true);
  expect(typeof figure.unit).toBe("string");
  // A target and a verdict come together, or neither (a figure for information).
  expect(typeof figure.target === "string").toBe(typeof figure.met === "boolean");
  if (figure.met !== false) expect(figure.whyMissed).toBeUndefined();
  if (figure.baseline !== undefined) expect(Number.isFinite(figure.baseline)).toBe(true);
  if (figure.ratio !== undefined) expect(Number.isFinite(figure.ratio)).toBe(true);
  const allowed = new Set([
    "name",
    "value",
    "unit",
    "baseline",
    "ratio",
    "target",
    "met",
    "whyMissed",
  ]);
  expect(Object.keys(figure).filter((key) => !allowed.has(key))).toEqual([]);
}

/** The same keys for each engine, every number finite, one fleet per process count. */
function expectEngineShape(engine: EngineFigures | undefined, processes: number[]): void {
  expect(Object.keys(engine ?? {}).sort()).toEqual([
    "answerToResumeMs",
    "enqueueToStartMs",
    "fleets",
    "runs",
  ]);
  expect(engine!.fleets.map((fleet) => fleet.processes)).toEqual(processes);
  for (const fleet of engine!.fleets) {
    expect(Object.keys(fleet).sort()).toEqual([
      "processes",
      "roundTripsPerRun",
      "runsPerSecond",
      "workerCpuMsPerRun",
    ]);
    expect(Object.values(fleet).every(Number.isFinite)).toBe(true);
  }
  for (const latency of [engine!.enqueueToStartMs, engine!.answerToResumeMs]) {
    expect(Object.keys(latency).sort()).toEqual(["p50", "p99"]);
    expect(Object.values(latency).every(Number.isFinite)).toBe(true);
  }
}

function expectShape(result: FigureResult, figureCount: number): void {
  expect(result.figures).toHaveLength(figureCount);
  for (const figure of result.figures) expectFigureShape(figure);
  // What --json prints must survive JSON (no NaN, no undefined values).
  expect(JSON.parse(JSON.stringify(result.figures))).toEqual(result.figures);
}

describe("bench figures at minimal sizes", () => {
  it("step overhead runs every contender, each agent run completing with its tool call", async () => {
    const result = await measureStepOverhead({
      url: simulators.echoUrl,
      apiKey: simulators.reasonerApiKey,
      coldRuns: 1,
      warmup: 0,
      runs: 2,
      // The sources: another test rebuilds dist/ meanwhile.
      library: "sources",
    });
    expectShape(result, 8);
    // One cold and two steady runs of each of six contenders: the fetch
    // floor, the pooled floor and the library, whole and streamed.
    expect(result.counts).toEqual({
      libraryRuns: 6,
      libraryRunsCompleted: 6,
      baselineRuns: 12,
      toolCalls: 6,
    });
    expect(result.figures.filter((figure) => figure.target === "ratio <= 1.00")).toHaveLength(2);
    const pooled = result.figures.filter((figure) =>
      figure.name.endsWith("against the pooled floor"),
    );
    expect(pooled.map((figure) => figure.target)).toEqual(["ratio <= 1.25", "ratio <= 1.25"]);
    // The first runs of the process are reported beside them, without a target.
    const cold = result.figures.filter((figure) => figure.name.includes("first 1 runs"));
    expect(cold.map((figure) => figure.target)).toEqual([undefined, undefined]);
  });

  it("step overhead against the scripted server: the library and the pooled floor, whole and streamed, each run completing", async () => {
    const result = await measureStepOverhead({
      url: simulators.scriptedUrl,
      apiKey: simulators.scriptedApiKey,
      server: "scripted",
      coldRuns: 0,
      warmup: 1,
      runs: 2,
      // The sources: another test rebuilds dist/ meanwhile.
      library: "sources",
    });
    expectShape(result, 4);
    // Three runs of each of four contenders: the pooled floor and the library, whole and streamed.
    expect(result.counts).toEqual({
      libraryRuns: 6,
      libraryRunsCompleted: 6,
      baselineRuns: 6,
      toolCalls: 6,
    });
    expect(result.figures.map((figure) => figure.target)).toEqual([
      "ratio <= 1.25",
      undefined,
      "ratio <= 1.25",
      undefined,
    ]);
    expect(result.figures.every((figure) => figure.name.includes("scripted server"))).toBe(true);
  });

  it("stream reading assembles the same answer as the hand-written reader", async () => {
    const result = await measureStreamReading({
      url: simulators.longStreamUrl,
      apiKey: simulators.longStreamApiKey,
      chunks: 50,
      warmup: 0,
      runs: 2,
      // The sources: another test rebuilds dist/ meanwhile.
      library: "sources",
    });
    expectShape(result, 2);
    expect(result.counts.libraryReads).toBe(2);
    expect(result.counts.baselineReads).toBe(2);
    expect(result.counts.bytes).toBeGreaterThan(0);
    // 50 chunks: 25 text pieces and 25 argument fragments ("{", 23 spaces, "}").
    expect(result.counts.argumentCharacters).toBe(25);
  });

  it("scale completes every concurrent run, in this process and in a child", async () => {
    const inProcess = await measureScale({
      url: simulators.echoUrl,
      apiKey: simulators.reasonerApiKey,
      concurrency: 10,
      repetitions: 1,
      maxConcurrentRequests: 3,
    });
    expectShape(inProcess, 3);
    expect(inProcess.counts).toEqual({ runs: 10, completedRuns: 10 });
    // The targets are the library's: the hand-written floor's figures carry no verdict.
    expect(inProcess.figures.filter((figure) => figure.target !== undefined)).toHaveLength(2);
    const floor = await measureScale({
      url: simulators.echoUrl,
      apiKey: simulators.reasonerApiKey,
      concurrency: 10,
      repetitions: 1,
      baseline: true,
    });
    expect(floor.counts).toEqual({ runs: 10, completedRuns: 10 });
    expect(floor.figures.map((figure) => [figure.target, figure.met])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
      [undefined, undefined],
    ]);

    const child = await spawnTsProcess<FigureResult>(
      new URL("../../bench/scale-process.ts", import.meta.url),
      [simulators.echoUrl, simulators.reasonerApiKey, "10", "1"],
    );
    await child.stop();
    expectShape(child.message, 3);
    expect(child.message.counts).toEqual({ runs: 10, completedRuns: 10 });
  });

  it("tool fan-out never runs more tools at once than toolConcurrency", async () => {
    const result = await measureToolFanOut({
      calls: 4,
      toolMs: 5,
      concurrencies: [1, 2],
      runs: 1,
    });
    expectShape(result, 2);
    // One untimed and one timed run per concurrency, 4 calls each.
    expect(result.counts).toEqual({ succeededCalls: 16, "maxInFlight@1": 1, "maxInFlight@2": 2 });
    expect(result.figures.map((figure) => figure.baseline)).toEqual([20, 10]);
  });

  it("import time starts fresh processes, bare and importing the built entry", async () => {
    // A module of its own, not dist/, which another test rebuilds meanwhile.
    const entry = "data:text/javascript,export default 1";
    const result = await measureImportTime({ runs: 2, build: false, entry });
    expectShape(result, 1);
    expect(result.counts).toEqual({ processes: 4 });
    expect(result.figures[0]).toMatchObject({ unit: "ms", target: "< 120 ms" });
  });

  it("bulk delete sends ceil(n / batch) requests and deletes every callback", async () => {
    const result = await measureBulkDelete({
      ordersUrl: simulators.ordersUrl,
      token: simulators.ordersToken,
      callbacks: 3,
      batchSize: 2,
      warmup: 0,
      runs: 1,
    });
    expectShape(result, 2);
    expect(result.counts).toEqual({ callbacks: 3, batchSize: 2, expectedRequests: 2, requests: 2 });
    expect(result.figures[0]).toMatchObject({ value: 2, unit: "requests", met: true });
  });
});

describe("the fleet figure at minimal size", () => {
  it("resumes every run with each fleet, and times answers to resumed runs", async () => {
    const result = await measureFleet({
      runs: 12,
      workerCounts: [1, 2],
      concurrency: 2,
      latencySamples: 2,
      databaseUrl: inject("databaseUrl"),
    });
    expectShape(result, 12);
    expectEngineShape(result.engine, [1, 2]);
    expect(result.counts).toEqual({
      runsSuspended: 12,
      completedWith1Workers: 12,
      completedWith2Workers: 12,
      tableBytes: expect.any(Number),
      enqueueSamples: 2,
      latencySamples: 2,
    });
    // The tables hold at least the 12 runs' states.
    expect(result.counts.tableBytes).toBeGreaterThan(12 * 1000);
    expect(
      result.figures.filter((figure) => figure.target !== undefined).map((figure) => figure.target),
    ).toEqual(["at most 4", "< 50 ms", "< 100 ms"]);
  }, 120_000);
});

describe("the DBOS figure at minimal size", () => {
  it("resumes every run with each fleet of DBOS processes, and times starts and answers", async () => {
    const result = await measureDbosFleet({
      runs: 6,
      workerCounts: [1, 2],
      concurrency: 2,
      latencySamples: 2,
      databaseUrl: inject("databaseUrl"),
    });
    expectShape(result, 10);
    expectEngineShape(result.engine, [1, 2]);
    expect(result.counts).toEqual({
      waitingWith1Processes: 6,
      completedWith1Processes: 6,
      waitingWith2Processes: 6,
      completedWith2Processes: 6,
      enqueueSamples: 2,
      latencySamples: 2,
    });
    // Information beside the fleet's figures: no targets of its own.
    expect(result.figures.filter((figure) => figure.target !== undefined)).toEqual([]);
    // A resumed run costs statements of both DBOS and the run store: more than none.
    for (const fleet of result.engine!.fleets) expect(fleet.roundTripsPerRun).toBeGreaterThan(1);
    const table = formatEngines({ dbos: result.engine }).split("\n");
    expect(table[0]).toMatch(/^durable runs\s+DBOS$/);
    expect(table).toContainEqual(
      expect.stringMatching(/^runs per second, 2 processes\s+[\d.]+ runs\/s$/),
    );
  }, 180_000);
});

describe("the waiting-runs figure at minimal size", () => {
  it("copies the waiting runs in, checks them within the budget and reports every figure", async () => {
    const result = await measureWaitingRuns({
      runs: 200,
      checksPerSecond: 0.001,
      durationMs: 300,
      workers: 2,
      concurrency: 2,
      databaseUrl: inject("databaseUrl"),
    });
    expectShape(result, 9);
    // A budget of one check saved up: the messaging service is asked once.
    expect(result.counts).toMatchObject({ waitingRuns: 200, checks: 1 });
    expect(result.counts.stillDue).toBeGreaterThanOrEqual(199);
    expect(result.figures.find((figure) => figure.unit === "bytes/run")?.value).toBeGreaterThan(0);
  }, 120_000);
});

describe("bench command line and output", () => {
  it("reads --json, --quick and --only, and refuses anything else", () => {
    expect(parseBenchOptions([])).toMatchObject({ json: false, quick: false });
    const options = parseBenchOptions(["--json", "--quick", "--only", "step,bulk"]);
    expect(options).toMatchObject({ json: true, quick: true, only: ["step", "bulk"] });
    expect(() => parseBenchOptions(["--only", "steps"])).toThrow(/step, stream, scale/);
    expect(() => parseBenchOptions(["--fast"])).toThrow(/unknown argument "--fast"/);
    expect(parseBenchOptions(["--only", "import"]).only).toEqual(["import"]);
  });

  it("prints the machine and one row per figure", () => {
    const figures: Figure[] = [
      {
        name: "a",
        value: 1.5,
        unit: "ms",
        baseline: 1,
        ratio: 1.5,
        target: "ratio <= 1.10",
        met: false,
      },
      { name: "b", value: 2, unit: "MB", target: "< 300 MB", met: true },
      { name: "c", value: 3, unit: "ms" },
    ];
    const table = formatTable(readMachineInfo(), figures).split("\n");
    expect(table[0]).toMatch(/cores, .* GiB, Node v\d+/);
    expect(table.slice(-3)).toEqual([
      expect.stringMatching(/^a\s+1\.5 ms\s+1 ms\s+1\.500\s+ratio <= 1\.10\s+NO$/),
      expect.stringMatching(/^b\s+2 MB\s+< 300 MB\s+yes$/),
      // No target, no verdict: nothing after the value.
      expect.stringMatching(/^c\s+3 ms$/),
    ]);
  });
});
