import { type Logger, pino } from "pino";
import { z } from "zod";
import type { AgentEvent } from "../../src/agent/agent-events.js";
import type { AgentStream } from "../../src/agent/agent-stream.js";
import type { ModelMessage, ToolModelMessage } from "../../src/agent/model-message.js";
import { defineTool } from "../../src/tools/define-tool.js";

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves when the signal fires; never otherwise. */
export const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });

/** A promise that never settles: a callee ignoring its signal. */
export const forever = () => new Promise<never>(() => {});

/** A pino logger keeping every line it writes, parsed. */
export function capturingLogger(): {
  logger: Logger;
  lines: Array<Record<string, unknown>>;
  text: () => string;
} {
  const raw: string[] = [];
  const logger = pino({ level: "debug" }, { write: (chunk: string) => void raw.push(chunk) });
  return {
    logger,
    get lines() {
      return raw.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    text: () => raw.join(""),
  };
}

export function toolMessages(messages: readonly ModelMessage[]): ToolModelMessage[] {
  return messages.filter((message): message is ToolModelMessage => message.role === "tool");
}

export async function collect(stream: AgentStream): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** `add_numbers` with a zod schema; counts its executions. */
export function addNumbersTool() {
  const calls: Array<{ a: number; b: number }> = [];
  const tool = defineTool({
    name: "add_numbers",
    description: "Adds two numbers.",
    parameters: z.object({ a: z.number(), b: z.number().max(100) }),
    execute: (args) => {
      calls.push(args);
      return { sum: args.a + args.b };
    },
  });
  return { tool, calls };
}
