import type { ServerResponse } from "node:http";
import { setTimeout as sleep, setImmediate as yieldToLoop } from "node:timers/promises";

/** How {@link writeSse} paces and ends a stream. */
export interface WriteSseOptions {
  /** Pause between writes; 0 yields to the event loop only. */
  delayMs: number;
  /** When set, each event is written in pieces of this many bytes. */
  bytesPerWrite?: number;
  /** Destroy the connection after the last event instead of ending the response. */
  cut?: boolean;
  /**
   * Write the events back to back in large writes, with no pause, so the
   * client's reading and not this pacing sets the speed. Ignores `delayMs`
   * and `bytesPerWrite`.
   */
  burst?: boolean;
}

const burstWriteBytes = 64 * 1024;

/**
 * Writes SSE events as separate writes with a pause between them, so clients
 * see them in separate reads. Stops early when the client goes away and
 * honours backpressure.
 */
export async function writeSse(
  response: ServerResponse,
  events: readonly string[],
  options: WriteSseOptions,
): Promise<void> {
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  response.flushHeaders();
  if (options.burst) {
    await writeBurst(response, events);
  } else {
    await writePaced(response, events, options);
  }
  if (response.destroyed) return;
  // destroySoon flushes what was written, then closes without the final chunk: a cut mid-stream.
  if (options.cut) response.socket?.destroySoon();
  else response.end();
}

async function writePaced(
  response: ServerResponse,
  events: readonly string[],
  options: WriteSseOptions,
): Promise<void> {
  for (const event of events) {
    const writes = options.bytesPerWrite ? bytePieces(event, options.bytesPerWrite) : [event];
    for (const piece of writes) {
      if (response.destroyed) return;
      if (!response.write(piece)) await drained(response);
      await (options.delayMs > 0 ? sleep(options.delayMs) : yieldToLoop());
    }
  }
}

async function writeBurst(response: ServerResponse, events: readonly string[]): Promise<void> {
  const bytes = Buffer.from(events.join(""), "utf8");
  for (let start = 0; start < bytes.length; start += burstWriteBytes) {
    if (response.destroyed) return;
    if (!response.write(bytes.subarray(start, start + burstWriteBytes))) await drained(response);
  }
}

function bytePieces(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text, "utf8");
  const pieces: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) {
    pieces.push(bytes.subarray(start, start + size));
  }
  return pieces;
}

function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });
}
