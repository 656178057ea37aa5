import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { Agent } from "../src/agent/agent.js";
import { ScriptedModel } from "../src/testing/scripted-model.js";
import { defineTool } from "../src/tools/define-tool.js";
import { type Figure, type FigureResult, round } from "./figure.js";
import { median } from "./statistics.js";

/** Options of {@link measureToolFanOut}. */
export interface ToolFanOutOptions {
  /** Tool calls in the model's one answer. @default 20 */
  calls?: number;
  /** How long each tool takes, in ms. @default 50 */
  toolMs?: number;
  /** The `toolConcurrency` values to measure. @default [1, 4, 10, 20] */
  concurrencies?: readonly number[];
  /** Timed runs per concurrency (after one untimed run). */
  runs: number;
}

/** How far the wall time may be from ceil(calls / concurrency) x toolMs. */
export const fanOutTolerance = 0.2;

/**
 * Figure 4: one answer asking for `calls` tools that each take `toolMs`,
 * run with each `toolConcurrency`; the median wall time of the run against
 * the ideal ceil(calls / concurrency) x toolMs. A ScriptedModel answers, so
 * the figure is the loop's scheduling, not the network.
 */
export async function measureToolFanOut(options: ToolFanOutOptions): Promise<FigureResult> {
  const calls = options.calls ?? 20;
  const toolMs = options.toolMs ?? 50;
  const concurrencies = options.concurrencies ?? [1, 4, 10, 20];
  let inFlight = 0;
  let maxInFlight = 0;
  const wait = defineTool({
    name: "wait",
    description: "Waits a fixed time, as a slow API call would.",
    parameters: z.object({ index: z.number().int() }),
    execute: async (_args, context) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await sleep(toolMs, undefined, { signal: context.signal });
        return { waited: toolMs };
      } finally {
        inFlight--;
      }
    },
  });
  const counts: Record<string, number> = { succeededCalls: 0 };
  const figures: Figure[] = [];
  for (const concurrency of concurrencies) {
    const runOnce = async () => {
      const model = new ScriptedModel([
        {
          toolCalls: Array.from({ length: calls }, (_, index) => ({
            name: "wait",
            arguments: { index },
          })),
        },
        { text: "done" },
      ]);
      const started = performance.now();
      const result = await new Agent({ model, tools: [wait], toolConcurrency: concurrency }).run(
        "Wait on every item.",
      );
      const wall = performance.now() - started;
      const succeeded = result.steps[0]?.toolCalls.filter((call) => call.status === "succeeded");
      if (result.status !== "completed" || succeeded?.length !== calls) {
        throw new Error(`the fan-out run ended ${result.status}: ${result.error?.message ?? ""}`);
      }
      counts.succeededCalls! += calls;
      return wall;
    };
    await runOnce();
    maxInFlight = 0;
    const walls: number[] = [];
    for (let run = 0; run < options.runs; run++) walls.push(await runOnce());
    counts[`maxInFlight@${concurrency}`] = maxInFlight;
    const ideal = Math.ceil(calls / concurrency) * toolMs;
    const value = median(walls);
    const ratio = value / ideal;
    figures.push({
      name: `tool fan-out (${calls} x ${toolMs} ms tools, toolConcurrency ${concurrency})`,
      value: round(value, 1),
      unit: "ms",
      baseline: ideal,
      ratio: round(ratio),
      target: `within ${fanOutTolerance * 100}% of ${ideal} ms`,
      met: Math.abs(ratio - 1) <= fanOutTolerance,
    });
  }
  return { figures, counts };
}
