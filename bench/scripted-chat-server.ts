import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { echoToolName } from "./echo-tool.js";

/** A running {@link startScriptedChatServer}. */
export interface ScriptedChatServer {
  /** The chat-completions URL. */
  url: string;
  /** The bearer key it expects. */
  apiKey: string;
  close(): Promise<void>;
}

const header = {
  id: "chatcmpl-scripted",
  created: 1_700_000_000,
  model: "scripted",
};

/** The first answer: one call of the echo tool with `{}`. */
const callMessage = {
  role: "assistant",
  content: null,
  tool_calls: [
    { id: "call_scripted", type: "function", function: { name: echoToolName, arguments: "{}" } },
  ],
};

/** The second answer: "done". */
const doneMessage = { role: "assistant", content: "done" };

const usage = { prompt_tokens: 40, completion_tokens: 2, total_tokens: 42 };

function wholeAnswer(message: object, finishReason: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      ...header,
      object: "chat.completion",
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      usage,
    }),
  );
}

function streamedAnswer(deltas: object[], finishReason: string): Buffer {
  const chunk = (choices: object[], extra: object = {}) =>
    `data: ${JSON.stringify({ ...header, object: "chat.completion.chunk", choices, ...extra })}\n\n`;
  const events = [
    chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
    ...deltas.map((delta) => chunk([{ index: 0, delta, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: finishReason }]),
    chunk([], { usage }),
    "data: [DONE]\n\n",
  ];
  return Buffer.from(events.join(""));
}

// Built once: the server's share of each request is reading it and one write.
const answers = {
  call: wholeAnswer(callMessage, "tool_calls"),
  done: wholeAnswer(doneMessage, "stop"),
  streamedCall: streamedAnswer(
    [
      {
        tool_calls: [
          {
            index: 0,
            id: "call_scripted",
            type: "function",
            function: { name: echoToolName, arguments: "" },
          },
        ],
      },
      { tool_calls: [{ index: 0, function: { arguments: "{}" } }] },
    ],
    "tool_calls",
  ),
  streamedDone: streamedAnswer([{ content: "done" }], "stop"),
};

/**
 * A chat-completions server that answers at once, for the step-overhead
 * figure beside the simulator: a real `node:http` server on loopback
 * playing one two-step script (a call of the echo tool, then "done" once
 * the conversation holds a tool result), whole JSON or streamed as SSE in
 * one write, from answers built at start. It reads each request's body to
 * the end but checks nothing of it beyond the key, whether it streams, and
 * whether a tool result is in it: the simulator's validation, pacing and
 * answer building are what this server leaves out, so that the library's
 * cost over the pooled floor shows at its largest.
 */
export async function startScriptedChatServer(): Promise<ScriptedChatServer> {
  const apiKey = `scripted-${randomBytes(8).toString("hex")}`;
  const authorization = `Bearer ${apiKey}`;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.headers.authorization !== authorization) {
        response.writeHead(401, { "content-type": "application/json" });
        response.end('{"error":{"message":"bad key","type":"invalid_request_error"}}');
        return;
      }
      const body = Buffer.concat(chunks).toString("utf8");
      const second = body.includes('"role":"tool"');
      if (body.includes('"stream":true')) {
        const answer = second ? answers.streamedDone : answers.streamedCall;
        // Chunked, as providers send a stream; the whole answer in one chunk.
        response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
        response.end(answer);
      } else {
        const answer = second ? answers.done : answers.call;
        response.writeHead(200, {
          "content-type": "application/json; charset=utf-8",
          "content-length": answer.byteLength,
        });
        response.end(answer);
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    apiKey,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
