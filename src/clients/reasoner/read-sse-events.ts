import { createParser } from "eventsource-parser";
import { Utf8ChunkDecoder } from "./utf8-chunk-decoder.js";

/** One server-sent event. */
export interface SseMessage {
  /** The `event:` field; undefined for plain data events. */
  event: string | undefined;
  data: string;
  /**
   * True when the body ended without the blank line that closes this event,
   * so its data may be cut short.
   */
  truncated: boolean;
  /**
   * A line outside any event, which the SSE format does not define and a
   * parser drops (`data` holds the whole line): some providers and proxies
   * write an error there as bare JSON.
   */
  outsideEvent: boolean;
}

/**
 * Server-sent events from raw body bytes, yielded as the events completed by
 * each read (never an empty batch): one yield per read rather than per
 * event keeps a long stream's cost in parsing. UTF-8 characters split across
 * reads are decoded whole; LF, CR and CRLF line ends and comment lines
 * (keep-alives) are handled by eventsource-parser.
 */
export async function* readSseEvents(
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<SseMessage[], void, undefined> {
  const decoder = new Utf8ChunkDecoder();
  let pending: SseMessage[] = [];
  let flushing = false;
  const parser = createParser({
    onEvent: (message) => {
      pending.push({
        event: message.event,
        data: message.data,
        truncated: flushing,
        outsideEvent: false,
      });
    },
    onError: (error) => {
      if (error.type === "unknown-field" && error.line !== undefined) {
        pending.push({
          event: undefined,
          data: error.line,
          truncated: flushing,
          outsideEvent: true,
        });
      }
    },
  });
  for await (const chunk of chunks) {
    parser.feed(decoder.decode(chunk));
    if (pending.length === 0) continue;
    const batch = pending;
    pending = [];
    yield batch;
  }
  // An event left open at the end is still offered: a provider that omits the
  // final blank line has sent all its data, and a cut one is flagged.
  flushing = true;
  parser.feed(`${decoder.end()}\n\n`);
  if (pending.length > 0) yield pending;
}
