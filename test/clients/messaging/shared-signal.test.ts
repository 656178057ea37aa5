import { getEventListeners, setMaxListeners } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { AbortedError } from "../../../src/errors/index.js";

// Many runs in flight often share one signal (a worker's shutdown signal).
// Each request must not add a listener of its own to it: with Node's usual
// limit of 10 per signal, the eleventh prints MaxListenersExceededWarning,
// and listeners pile up on a long-lived signal.

const runs = 24;
const servers: ReturnType<typeof createServer>[] = [];

/** A messaging service whose answers wait until `release()`; `held` counts the waiting requests. */
async function heldMessagingService() {
  const waiting: ServerResponse[] = [];
  let arrived: () => void = () => {};
  const server = createServer((request, response) => {
    request.resume();
    waiting.push(response);
    arrived();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Resolves once `count` requests are waiting. */
    held: (count: number) =>
      new Promise<void>((resolve) => {
        arrived = () => {
          if (waiting.length >= count) resolve();
        };
        arrived();
      }),
    release() {
      for (const response of waiting.splice(0)) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(
          JSON.stringify({
            interaction_id: "int_1",
            kind: "interaction",
            state: "answered",
            created_at: "2026-11-24T20:00:00Z",
          }),
        );
      }
    },
  };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Runs `body`, returning the MaxListenersExceededWarnings emitted meanwhile. */
async function listenerWarnings(body: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => {
    if (warning.name === "MaxListenersExceededWarning") warnings.push(warning.message);
  };
  process.on("warning", onWarning);
  try {
    await body();
    // Warnings are emitted on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", onWarning);
  }
  return warnings;
}

describe("MessagingClient with one signal shared by many runs", () => {
  it(`keeps one listener on it with ${runs} requests in flight, and none after`, async () => {
    const service = await heldMessagingService();
    const client = new MessagingClient({ baseUrl: service.url, maxConnections: 64 });
    const shared = new AbortController();
    setMaxListeners(10, shared.signal);
    let listenersInFlight = -1;
    const warnings = await listenerWarnings(async () => {
      const reads = Array.from({ length: runs }, () =>
        client.getInteraction("int_1", { signal: shared.signal }),
      );
      await service.held(runs);
      listenersInFlight = getEventListeners(shared.signal, "abort").length;
      service.release();
      const answers = await Promise.all(reads);
      expect(answers.every((answer) => answer.state === "answered")).toBe(true);
    });
    expect(listenersInFlight).toBe(1);
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(0);
    expect(warnings).toEqual([]);
  });

  it("still aborts every request in flight when it fires", async () => {
    const service = await heldMessagingService();
    const client = new MessagingClient({ baseUrl: service.url, maxConnections: 64 });
    const shared = new AbortController();
    setMaxListeners(10, shared.signal);
    const warnings = await listenerWarnings(async () => {
      const reads = Array.from({ length: runs }, () =>
        client.getInteraction("int_1", { signal: shared.signal }).then(
          () => undefined,
          (error: unknown) => error,
        ),
      );
      await service.held(runs);
      shared.abort();
      const errors = await Promise.all(reads);
      expect(errors.every((error) => error instanceof AbortedError)).toBe(true);
    });
    expect(warnings).toEqual([]);
  });
});
