import { spawnSync } from "node:child_process";
import { type FigureResult, round } from "./figure.js";
import { buildPackage } from "./library.js";
import { median } from "./statistics.js";

/** Most a fresh process may take to start and import the main entry. */
export const importTimeTargetMs = 120;

/** Options of {@link measureImportTime}. */
export interface ImportTimeOptions {
  /** Fresh processes of each kind. */
  runs: number;
  /** Build the package first (`npm run build`): the figure is about what users import. @default true */
  build?: boolean | undefined;
  /** The module imported. @default the built main entry, dist/src/index.js */
  entry?: string | undefined;
}

/**
 * Figure 6: wall time of a fresh `node` process that imports the built main
 * entry (`dist/src/index.js`, what `import("switchyard-agents")` loads) and exits,
 * beside a bare `node -e 0`, interleaved; medians. Also how many modules
 * the import loads, from a second process that lists them.
 */
export async function measureImportTime(options: ImportTimeOptions): Promise<FigureResult> {
  if (options.build !== false) {
    buildPackage();
  }
  const entry = options.entry ?? new URL("../dist/src/index.js", import.meta.url).href;
  const time = (args: string[]): number => {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { stdio: "ignore" });
    const elapsed = performance.now() - started;
    if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}`);
    return elapsed;
  };
  const bare: number[] = [];
  const library: number[] = [];
  for (let run = 0; run < options.runs; run++) {
    // Interleaved, alternating the order: the machine's drift falls on both.
    if (run % 2 === 0) {
      bare.push(time(["-e", "0"]));
      library.push(time(["--input-type=module", "-e", `await import(${JSON.stringify(entry)});`]));
    } else {
      library.push(time(["--input-type=module", "-e", `await import(${JSON.stringify(entry)});`]));
      bare.push(time(["-e", "0"]));
    }
  }
  const value = median(library);
  const baseline = median(bare);
  return {
    figures: [
      {
        name: 'import("switchyard-agents") in a fresh process',
        value: round(value, 1),
        unit: "ms",
        baseline: round(baseline, 1),
        ratio: round(value / baseline),
        target: `< ${importTimeTargetMs} ms`,
        met: value < importTimeTargetMs,
      },
    ],
    counts: { processes: bare.length + library.length },
  };
}
