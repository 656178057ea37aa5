import { createParser } from "eventsource-parser";

/** A tool call as the hand-written loop assembles it from fragments. */
export interface RawToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The answer the hand-written stream reader assembled. */
export interface RawStreamAnswer {
  content: string;
  toolCalls: RawToolCall[];
  /** Bytes of the body. */
  bytes: number;
}

interface Chunk {
  choices?: {
    delta?: {
      content?: string | null;
      tool_calls?: {
        index: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }[];
    };
  }[];
}

/**
 * The floor for reading a chat stream: the body's bytes through a
 * TextDecoder and eventsource-parser, each data event through JSON.parse,
 * text and argument fragments collected and joined once. It trusts the
 * provider (split tool calls with an `index`, first choice only) and checks
 * nothing, which is what makes it the floor.
 */
export async function readSseRaw(body: AsyncIterable<Uint8Array>): Promise<RawStreamAnswer> {
  const contentParts: string[] = [];
  const calls: { id: string; name: string; parts: string[] }[] = [];
  const parser = createParser({
    onEvent(event) {
      if (event.data === "[DONE]") return;
      const chunk = JSON.parse(event.data) as Chunk;
      const delta = chunk.choices?.[0]?.delta;
      if (!delta) return;
      if (delta.content) contentParts.push(delta.content);
      for (const fragment of delta.tool_calls ?? []) {
        let call = calls[fragment.index];
        if (!call) {
          call = { id: fragment.id ?? "", name: fragment.function?.name ?? "", parts: [] };
          calls[fragment.index] = call;
        }
        const args = fragment.function?.arguments;
        if (args) call.parts.push(args);
      }
    },
  });
  const decoder = new TextDecoder();
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    parser.feed(decoder.decode(chunk, { stream: true }));
  }
  parser.feed(decoder.decode());
  return {
    content: contentParts.join(""),
    toolCalls: calls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: call.parts.join(""),
    })),
    bytes,
  };
}
