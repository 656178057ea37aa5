import type { ChatRequest } from "../src/clients/reasoner/chat-types.js";
import { echoTask, echoTool } from "./echo-tool.js";
import { cpuFigure, type FigureResult, round } from "./figure.js";
import { measureInterleaved } from "./interleave.js";
import { type LibrarySource, loadLibrary } from "./library.js";
import { readSseRaw } from "./read-sse-raw.js";
import { median } from "./statistics.js";

/** Options of {@link measureStreamReading}. */
export interface StreamReadingOptions {
  /** The reasoner simulator playing `long-stream`. */
  url: string;
  apiKey: string;
  /** Chunks the simulator was started with, for the figure's name. */
  chunks: number;
  warmup: number;
  runs: number;
  /** The library measured: the built package (the default), or its sources through tsx. */
  library?: LibrarySource | undefined;
}

/** Most the library's stream reader may cost over eventsource-parser + JSON.parse. */
export const streamReadingTarget = 1.25;

/**
 * Figure 2: one long streamed answer (text pieces, then one tool call's
 * arguments in fragments) read with `ReasonerClient.stream().finalCompletion()`,
 * against the same bytes read with `fetch` + eventsource-parser + JSON.parse
 * alone, interleaved. MB/s of each and the ratio of their times.
 */
export async function measureStreamReading(options: StreamReadingOptions): Promise<FigureResult> {
  const { ReasonerClient } = await loadLibrary(options.library);
  const client = new ReasonerClient({ url: options.url, apiKey: options.apiKey });
  const request: ChatRequest = {
    messages: [{ role: "user", content: echoTask }],
    tools: [
      {
        type: "function",
        function: {
          name: echoTool.name,
          description: echoTool.description,
          parameters: echoTool.parameters,
        },
      },
    ],
  };
  const body = JSON.stringify({
    ...request,
    stream: true,
    stream_options: { include_usage: true },
  });
  const counts = { bytes: 0, libraryReads: 0, baselineReads: 0, argumentCharacters: 0 };
  let expected: { content: string; arguments: string } | undefined;

  const [baseline, library] = await measureInterleaved(
    [
      async () => {
        const response = await fetch(options.url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            "content-type": "application/json",
            accept: "text/event-stream",
          },
          body,
        });
        const answer = await readSseRaw(response.body!);
        counts.bytes = answer.bytes;
        counts.baselineReads++;
        expected = { content: answer.content, arguments: answer.toolCalls[0]?.arguments ?? "" };
      },
      async () => {
        const completion = await client.stream(request).finalCompletion();
        const message = completion.choices[0]?.message;
        const args = message?.tool_calls?.[0]?.function.arguments ?? "";
        if (expected && (message?.content !== expected.content || args !== expected.arguments)) {
          throw new Error("the library assembled a different answer than the hand-written reader");
        }
        counts.argumentCharacters = args.length;
        counts.libraryReads++;
      },
    ],
    options,
  );
  const megabytes = counts.bytes / 1_000_000;
  const baselineSpeed = megabytes / (median(baseline!.wallMs) / 1000);
  const librarySpeed = megabytes / (median(library!.wallMs) / 1000);
  const ratio = baselineSpeed / librarySpeed;
  return {
    figures: [
      {
        name: `stream reading (${options.chunks} chunks, ${round(megabytes, 2)} MB)`,
        value: round(librarySpeed, 2),
        unit: "MB/s",
        baseline: round(baselineSpeed, 2),
        ratio: round(ratio),
        target: `ratio <= ${streamReadingTarget.toFixed(2)}`,
        met: ratio <= streamReadingTarget,
      },
      cpuFigure("stream reading", baseline!, library!),
    ],
    counts,
  };
}
