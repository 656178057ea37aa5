import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import { RunNotResumableError } from "../../../src/agent/durable/durable-errors.js";
import { runQueueMethods } from "../../../src/agent/durable/run-queue.js";
import { type RunStore, runStoreMethods } from "../../../src/agent/durable/run-store.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { useTemporaryDirectories } from "./durable-helpers.js";

const makeDirectory = useTemporaryDirectories();

/** The store's own methods of `store`, and nothing of its queue. */
function storeOnly(store: FileRunStore): RunStore {
  return Object.fromEntries(
    runStoreMethods.map((method) => [method, store[method].bind(store)]),
  ) as unknown as RunStore;
}

describe("the agent's run queue", () => {
  it("claims each run in the store when the store is also a queue, so a run held elsewhere is refused", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const held = await store.claim("run-held", { owner: "another-process" });
    const agent = new Agent({ model: new ScriptedModel([{ text: "done" }]), runStore: store });
    await expect(agent.run("go", { runId: "run-held" })).rejects.toBeInstanceOf(
      RunNotResumableError,
    );
    await held.release();
  });

  it("claims nothing with runQueue: false (another system holds the runs); saves are fenced by revision", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const held = await store.claim("run-held", { owner: "another-process" });
    const agent = new Agent({
      model: new ScriptedModel([{ text: "done" }]),
      runStore: storeOnly(store),
      runQueue: false,
    });
    const result = await agent.run("go", { runId: "run-held" });
    expect(result.status).toBe("completed");
    expect((await store.load("run-held")).status).toBe("completed");
    await held.release();
  });

  it("takes a store that is only a store: its runs are kept, and nothing is claimed", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const agent = new Agent({
      model: new ScriptedModel([{ text: "done" }]),
      runStore: storeOnly(store),
    });
    const result = await agent.run("go");
    expect(result.status).toBe("completed");
    expect((await store.load(result.runId ?? "")).status).toBe("completed");
    expect(await store.schedule(result.runId ?? "")).toEqual({ attempts: 0 });
  });

  it("refuses a runQueue lacking a method, or given without a runStore, naming what to pass", () => {
    const model = new ScriptedModel([]);
    const lacking = Object.fromEntries(
      runQueueMethods.filter((method) => method !== "wake").map((method) => [method, () => {}]),
    );
    const problemsOf = (build: () => unknown): readonly string[] => {
      try {
        build();
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        return (error as ConfigurationError).problems;
      }
      throw new Error("expected a ConfigurationError");
    };
    expect(problemsOf(() => new Agent({ model, runQueue: lacking as never }))).toEqual([
      expect.stringMatching(
        /^runQueue must implement every RunQueue method \(e\.g\. a PostgresRunStore\), or be false; it lacks wake\(\)\./,
      ),
    ]);
    const store = new FileRunStore({ directory: "/nonexistent/not-written" });
    expect(problemsOf(() => new Agent({ model, runQueue: store }))).toEqual([
      expect.stringMatching(/^runQueue needs a runStore/),
    ]);
  });
});
