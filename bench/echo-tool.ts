import { z } from "zod";
import { defineTool } from "../src/tools/define-tool.js";

/** Name of the trivial tool both the agent and the hand-written loop offer. */
export const echoToolName = "echo";

/** The trivial tool's work, shared so both loops run the same code. */
export function echoResult(args: unknown): { ok: true; received: unknown } {
  return { ok: true, received: args };
}

/**
 * A trivial tool, as a user would write it: zod parameters, no approval
 * needed; made with the `defineTool` given (the built package's or the
 * sources').
 */
export function makeEchoTool(define: typeof defineTool) {
  return define({
    name: echoToolName,
    description: "Answers with what it was given; a stand-in for real work.",
    parameters: z.object({ note: z.string().optional() }),
    execute: (args) => echoResult(args),
  });
}

/** {@link makeEchoTool} from the sources. */
export const echoTool = makeEchoTool(defineTool);

/** The task the `echo-tool` and `long-stream` scenarios answer with a call of {@link echoTool}. */
export const echoTask = `Call ${echoToolName} once, then say done.`;
