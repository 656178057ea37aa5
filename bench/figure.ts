import type { EngineFigures } from "./engine-figures.js";
import type { Samples } from "./interleave.js";
import { median } from "./statistics.js";

/**
 * One measured figure as `npm run bench -- --json` prints it. `baseline` is
 * the hand-written `fetch` loop doing the same work, `ratio` the library's
 * cost over it (above 1: slower). A figure reported without a target has
 * neither `target` nor `met`: it is information, not a verdict. A missed
 * target carries `whyMissed`: what stands in the way, and where
 * docs/performance.md shows the profile.
 */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  /** The target in words, e.g. `ratio <= 1.00`; absent for a figure without one. */
  target?: string;
  /** Whether the target was met; absent for a figure without a target. */
  met?: boolean;
  /** For a missed target: what stands in the way. */
  whyMissed?: string;
}

/**
 * What one figure function measured: the figures, and the counts behind
 * them (runs completed, requests sent, ...) that tests check for correctness.
 */
export interface FigureResult {
  figures: Figure[];
  counts: Record<string, number>;
  /** A durable-run engine's figures, side by side with the other engine's (the fleet and DBOS figures). */
  engine?: EngineFigures;
}

/**
 * The client-side CPU time per run of a library/baseline pair, reported
 * beside a wall-time figure: wall time includes the simulator's share and
 * the machine's other load, CPU time is what this process itself spent.
 */
export function cpuFigure(name: string, baseline: Samples, library: Samples): Figure {
  const value = median(library.cpuMs);
  const baselineCpu = median(baseline.cpuMs);
  return {
    name: `${name}, client CPU`,
    value: round(value),
    unit: "ms/run",
    baseline: round(baselineCpu),
    ratio: round(value / baselineCpu),
  };
}

/** Rounds for display and JSON: 3 significant decimals are more than the noise allows. */
export function round(value: number, decimals = 3): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}
