/** The figures the bench can run, in the order it runs them. */
export const figureKeys = [
  "step",
  "stream",
  "scale",
  "fanout",
  "bulk",
  "import",
  "fleet",
  "waiting",
] as const;

/** One figure's key, as `--only` takes it. */
export type FigureKey = (typeof figureKeys)[number];

/** Sizes of one bench run. */
export interface BenchSizes {
  /** Timed runs of each step contender in a fresh process, while V8 is still optimizing. */
  stepColdRuns: number;
  /** Untimed runs of each step contender after those, to the library's steady speed. */
  stepWarmup: number;
  stepRuns: number;
  /** Untimed runs of each contender against the scripted server (after the simulator's: the process is warm). */
  stepScriptedWarmup: number;
  streamChunks: number;
  streamWarmup: number;
  streamRuns: number;
  scaleConcurrency: number;
  scaleRepetitions: number;
  fanOutRuns: number;
  bulkCallbacks: number;
  bulkWarmup: number;
  bulkRuns: number;
  /** Fresh processes of each kind for the import-time figure. */
  importRuns: number;
  /** Suspended runs each fleet of the built-in engine resumes. */
  fleetRuns: number;
  /**
   * Runs each fleet of DBOS resumes: fewer, since DBOS starts each run
   * afresh for every fleet (a workflow cannot be copied in as a row is).
   */
  dbosFleetRuns: number;
  /** Answers timed from arrival to their run's resumption. */
  fleetLatencySamples: number;
  /** Suspended runs waiting for answers, inserted in bulk. */
  waitingRuns: number;
  /** How long the fleet checks them, in milliseconds. */
  waitingCheckMs: number;
}

/** What the command line asked for. */
export interface BenchOptions {
  json: boolean;
  quick: boolean;
  only: readonly FigureKey[];
  sizes: BenchSizes;
}

const fullSizes: BenchSizes = {
  stepColdRuns: 200,
  stepWarmup: 4000,
  stepRuns: 800,
  stepScriptedWarmup: 1000,
  streamChunks: 10_000,
  streamWarmup: 3,
  streamRuns: 25,
  scaleConcurrency: 1000,
  scaleRepetitions: 3,
  fanOutRuns: 3,
  bulkCallbacks: 1000,
  bulkWarmup: 1,
  bulkRuns: 10,
  importRuns: 20,
  fleetRuns: 1_000,
  dbosFleetRuns: 200,
  fleetLatencySamples: 10,
  waitingRuns: 100_000,
  waitingCheckMs: 10_000,
};

const quickSizes: BenchSizes = {
  ...fullSizes,
  stepColdRuns: 50,
  stepWarmup: 500,
  stepRuns: 100,
  stepScriptedWarmup: 200,
  streamWarmup: 1,
  streamRuns: 5,
  scaleRepetitions: 1,
  fanOutRuns: 1,
  bulkRuns: 3,
  importRuns: 6,
  fleetRuns: 500,
  dbosFleetRuns: 100,
  fleetLatencySamples: 5,
  waitingRuns: 10_000,
  waitingCheckMs: 5_000,
};

/** Usage text for a bad argument. */
export const benchUsage = `usage: npm run bench -- [--json] [--quick] [--only ${figureKeys.join(",")}]
  --json    print one JSON object { machine, figures } on stdout instead of a table
  --quick   fewer repetitions (a rougher median), for a quick look
  --only    run only these figures, comma-separated`;

/** Reads `--json`, `--quick` and `--only a,b`; throws with the usage for anything else. */
export function parseBenchOptions(args: readonly string[]): BenchOptions {
  let json = false;
  let quick = false;
  let only: FigureKey[] = [...figureKeys];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--json") json = true;
    else if (arg === "--quick") quick = true;
    else if (arg === "--only" || arg?.startsWith("--only=")) {
      const value = arg === "--only" ? args[++index] : arg.slice("--only=".length);
      const keys = (value ?? "").split(",").filter((key) => key !== "");
      const unknown = keys.filter((key) => !(figureKeys as readonly string[]).includes(key));
      if (keys.length === 0 || unknown.length > 0) {
        throw new Error(`--only takes figure names among ${figureKeys.join(", ")}\n${benchUsage}`);
      }
      only = keys as FigureKey[];
    } else {
      throw new Error(`unknown argument ${JSON.stringify(arg)}\n${benchUsage}`);
    }
  }
  return { json, quick, only, sizes: quick ? quickSizes : fullSizes };
}
