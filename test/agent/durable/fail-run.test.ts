import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import {
  RunConflictError,
  RunNotResumableError,
} from "../../../src/agent/durable/durable-errors.js";
import type { RunClaim } from "../../../src/agent/durable/run-queue.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { callbackTools, useTemporaryDirectories } from "./durable-helpers.js";

const temporaryDirectory = useTemporaryDirectories();

/** An agent over a fresh store, and a run of it suspended on the approval of `delete_callbacks`. */
async function suspendedRun() {
  const store = new FileRunStore({ directory: await temporaryDirectory() });
  const agent = new Agent({
    model: new ScriptedModel([
      { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_1" }] },
    ]),
    tools: callbackTools().tools,
    approver: new ScriptedApprover(["pending"]),
    runStore: store,
  });
  const result = await agent.run("delete cb-1", { suspendOnApproval: true });
  expect(result.status).toBe("suspended");
  return { store, agent, runId: result.runId ?? "" };
}

describe("agent.failRun", () => {
  it("refuses what is not a claim, or an error without a name and a message, saying what to pass; nothing is written", async () => {
    const { store, agent, runId } = await suspendedRun();
    const before = await store.load(runId);
    const claim = await store.claim(runId);
    try {
      const refusals: Array<[() => Promise<unknown>, string]> = [
        [
          () => agent.failRun(undefined as unknown as RunClaim, { name: "Stuck", message: "m" }),
          "claim must be a RunClaim",
        ],
        [
          () => agent.failRun(runId as unknown as RunClaim, { name: "Stuck", message: "m" }),
          "claim must be a RunClaim",
        ],
        [
          () => agent.failRun(claim, undefined as unknown as { name: string; message: string }),
          "error must be an object with a name and a message",
        ],
        [
          () => agent.failRun(claim, { name: 42, message: "m" } as unknown as Error),
          "error must be an object with a name and a message",
        ],
      ];
      for (const [refused, problem] of refusals) {
        const error = await refused().then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(ConfigurationError);
        expect((error as Error).message).toContain(problem);
        expect((error as Error).message).toContain("failRun()");
      }
      expect(await store.load(runId)).toEqual(before);
      // A real Error is an error with a name and a message.
      const failed = await agent.failRun(claim, new Error("given up by hand"));
      expect(failed.error).toEqual({ name: "Error", message: "given up by hand" });
    } finally {
      await claim.release();
    }
    expect((await store.load(runId)).status).toBe("failed");
  });

  it("refuses a run that ended, and a claim that was let go", async () => {
    const { store, agent, runId } = await suspendedRun();
    const released = await store.claim(runId);
    await released.release();
    await expect(agent.failRun(released, { name: "Stuck", message: "m" })).rejects.toBeInstanceOf(
      RunConflictError,
    );
    expect((await store.load(runId)).status).toBe("suspended");
    const claim = await store.claim(runId);
    try {
      await agent.failRun(claim, { name: "Stuck", message: "m" });
      await expect(agent.failRun(claim, { name: "Stuck", message: "again" })).rejects.toThrow(
        RunNotResumableError,
      );
    } finally {
      await claim.release();
    }
    expect((await store.load(runId)).error).toEqual({ name: "Stuck", message: "m" });
  });
});
