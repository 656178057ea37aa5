/** One fleet size's figures for durable runs. */
export interface EngineFleetFigures {
  /** Worker processes sharing the database. */
  processes: number;
  /** Answered runs resumed to their end per second. */
  runsPerSecond: number;
  /** Statements the worker processes sent (every connection), per resumed run. */
  roundTripsPerRun: number;
  /** CPU time of the worker processes (`process.cpuUsage()`), per resumed run, in ms. */
  workerCpuMsPerRun: number;
}

/** A latency's median and tail, in ms. */
export interface LatencyFigures {
  p50: number;
  p99: number;
}

/**
 * One engine's figures for durable runs (the built-in fleet, DBOS), as
 * `npm run bench -- --json` prints them side by side under `durableRuns`:
 * the same keys for each engine, measured the same way in one bench run.
 */
export interface EngineFigures {
  /** Suspended runs resumed by each fleet. */
  runs: number;
  fleets: EngineFleetFigures[];
  /** From a run committed (fleet) or started (DBOS) to its first step beginning, idle worker. */
  enqueueToStartMs: LatencyFigures;
  /** From an answer given (then `wake`) to its run ended. */
  answerToResumeMs: LatencyFigures;
}

/** The engines measured side by side, by key. */
export interface DurableRunFigures {
  fleet?: EngineFigures | undefined;
  dbos?: EngineFigures | undefined;
}

/** The engines' figures as a table, one column per engine, for people. */
export function formatEngines(engines: DurableRunFigures): string {
  const columns = (["fleet", "dbos"] as const).filter((key) => engines[key] !== undefined);
  if (columns.length === 0) return "";
  const titles = { fleet: "built-in fleet", dbos: "DBOS" };
  const cell = (key: "fleet" | "dbos", read: (figures: EngineFigures) => string) =>
    read(engines[key]!);
  const processCounts = [
    ...new Set(columns.flatMap((key) => engines[key]!.fleets.map((fleet) => fleet.processes))),
  ].sort((left, right) => left - right);
  const fleetRow = (
    label: string,
    processes: number,
    read: (fleet: EngineFleetFigures) => string,
  ) => [
    `${label}, ${processes} process${processes === 1 ? "" : "es"}`,
    ...columns.map((key) =>
      cell(key, (figures) => {
        const fleet = figures.fleets.find((entry) => entry.processes === processes);
        return fleet ? read(fleet) : "-";
      }),
    ),
  ];
  const rows = [
    ["runs resumed", ...columns.map((key) => cell(key, (figures) => String(figures.runs)))],
    ...processCounts.map((processes) =>
      fleetRow("runs per second", processes, (fleet) => `${fleet.runsPerSecond} runs/s`),
    ),
    ...processCounts.map((processes) =>
      fleetRow("round trips per run", processes, (fleet) => `${fleet.roundTripsPerRun}`),
    ),
    ...processCounts.map((processes) =>
      fleetRow("worker CPU per run", processes, (fleet) => `${fleet.workerCpuMsPerRun} ms`),
    ),
    [
      "enqueue to start p50 / p99",
      ...columns.map((key) =>
        cell(key, ({ enqueueToStartMs: { p50, p99 } }) => `${p50} / ${p99} ms`),
      ),
    ],
    [
      "answer to resume p50 / p99",
      ...columns.map((key) =>
        cell(key, ({ answerToResumeMs: { p50, p99 } }) => `${p50} / ${p99} ms`),
      ),
    ],
  ];
  const header = ["durable runs", ...columns.map((key) => titles[key])];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((text, column) => text.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join(
    "\n",
  );
}
