import { readFile, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { threadRunId } from "../../src/ag-ui/thread-runs.js";
import { RunNotFoundError } from "../../src/agent/durable/durable-errors.js";
import type { RunState } from "../../src/agent/durable/run-state.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { runState } from "../../src/testing/conformance-states.js";
import { captureLogger } from "../helpers/capture-logger.js";
import { type AgUiTestServer, clientFor, runClient, startAgUiServer } from "./ag-ui-server.js";

let server: AgUiTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A file run store that counts the state files it reads, by run id (a load that found none counts nothing). */
class CountingFileRunStore extends FileRunStore {
  readonly read: string[] = [];

  override async load(runId: string): Promise<RunState> {
    try {
      const state = await super.load(runId);
      this.read.push(runId);
      return state;
    } catch (error) {
      if (!(error instanceof RunNotFoundError)) this.read.push(runId);
      throw error;
    }
  }
}

/** Fills the store with `count` saved runs of other threads and of plain runs, each its own file. */
async function fillWithRuns(store: FileRunStore, count: number): Promise<void> {
  await store.save(runState("seed"));
  const seed = JSON.parse(await readFile(store.pathOf("seed"), "utf8")) as RunState;
  for (let index = 1; index < count; index++) {
    const runId = index % 2 === 0 ? threadRunId(`other-${index}`, 1) : `run_${index}`;
    await writeFile(store.pathOf(runId), JSON.stringify({ ...seed, runId }));
  }
}

/** What the model was sent, as user messages, in its `index`th request. */
function userMessagesOf(server: AgUiTestServer, index: number): string[] {
  return (server.model.requests[index]?.messages ?? [])
    .filter((message) => message.role === "user")
    .map((message) => String(message.content));
}

describe("a thread's runs in the run store", () => {
  it("are found by the thread: a new thread and its next message read none of the store's other 2,000 runs", async () => {
    let store: CountingFileRunStore | undefined;
    server = await startAgUiServer([{ text: "Hello." }, { text: "Hello again." }], {
      runStore: (directory) => {
        store = new CountingFileRunStore({ directory });
        return store;
      },
    });
    await fillWithRuns(store!, 2_000);
    const listed = await store!.list({ limit: 1000 });
    expect([listed.runs.length, listed.unreadable, listed.nextCursor]).toEqual([
      1000,
      [],
      expect.any(String),
    ]);
    store!.read.length = 0;

    const client = clientFor(server.url);
    expect((await runClient(client, { message: "Hi" })).error).toBeUndefined();
    expect((await runClient(client, { message: "Hi again" })).error).toBeUndefined();

    const ours = (runId: string) => runId.startsWith(threadRunId(client.threadId, 0).slice(0, -1));
    expect(store!.read.filter((runId) => !ours(runId))).toEqual([]);
    expect(userMessagesOf(server, 1)).toEqual(["Hi", "Hi again"]);
  });

  it("with a turn's run gone in the middle, goes on from the latest run, which holds that turn, and logs the turn missing", async () => {
    const { logger, text } = captureLogger("info");
    server = await startAgUiServer(
      [1, 2, 3, 4, 5, 6, 7].map((turn) => ({ text: `Answer ${turn}.` })),
      { agentOptions: { logger } },
    );
    const client = clientFor(server.url);
    for (const turn of [1, 2, 3, 4, 5]) {
      expect((await runClient(client, { message: `Message ${turn}` })).error).toBeUndefined();
    }
    expect(await server.runStore.delete(threadRunId(client.threadId, 4))).toBe(true);
    // The client's own copy of turn 4 is sent again; the server never takes it.
    const sixth = await runClient(client, { message: "Message 6" });
    expect(sixth.error).toBeUndefined();
    expect(userMessagesOf(server, 5)).toEqual([1, 2, 3, 4, 5, 6].map((turn) => `Message ${turn}`));
    const gone = JSON.parse(
      text()
        .split("\n")
        .find((line) => line.includes("are gone")) ?? "{}",
    );
    expect(gone).toMatchObject({
      level: 40,
      threadId: client.threadId,
      runId: threadRunId(client.threadId, 6),
      missingTurns: ["4"],
    });
    expect(gone.msg).toBe("AG-UI thread goes on from turn 5; the runs of its turns 4 are gone");
    // Numbered after the latest: the turn that is gone is never taken again.
    await expect(server.runStore.load(threadRunId(client.threadId, 6))).resolves.toMatchObject({
      status: "completed",
    });
    await expect(server.runStore.load(threadRunId(client.threadId, 4))).rejects.toThrow(
      RunNotFoundError,
    );
    expect((await runClient(client, { message: "Message 7" })).error).toBeUndefined();
    expect(userMessagesOf(server, 6)).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((turn) => `Message ${turn}`),
    );
  });

  it("with its latest run gone, goes on from the run before it: that turn is lost, and its number taken again", async () => {
    server = await startAgUiServer([1, 2, 3, 4].map((turn) => ({ text: `Answer ${turn}.` })));
    const client = clientFor(server.url);
    for (const turn of [1, 2, 3]) {
      expect((await runClient(client, { message: `Message ${turn}` })).error).toBeUndefined();
    }
    expect(await server.runStore.delete(threadRunId(client.threadId, 3))).toBe(true);
    expect((await runClient(client, { message: "Message 4" })).error).toBeUndefined();
    expect(userMessagesOf(server, 3)).toEqual(["Message 1", "Message 2", "Message 4"]);
    const third = await server.runStore.load(threadRunId(client.threadId, 3));
    expect(third.messages.at(-1)?.content).toBe("Answer 4.");
  });
});
