import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import { RunNotResumableError } from "../../../src/agent/durable/durable-errors.js";
import type { RunState } from "../../../src/agent/durable/run-state.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedApprover, type ScriptedCheck, ScriptedModel } from "../../../src/testing/index.js";
import {
  callbackTools,
  listAndDelete,
  toolMessagesById,
  useTemporaryDirectories,
} from "./durable-helpers.js";

const makeDirectory = useTemporaryDirectories();

/** Suspends a run on the approval of `delete_callbacks`, with a store in `directory` when given. */
async function suspend(directory?: string): Promise<{ runId: string; state: RunState }> {
  const result = await new Agent({
    model: new ScriptedModel([listAndDelete]),
    tools: callbackTools().tools,
    approver: new ScriptedApprover(["pending"]),
    ...(directory ? { runStore: new FileRunStore({ directory }) } : {}),
  }).run("delete cb-1 and cb-2", { suspendOnApproval: true, metadata: { ticket: "OPS-7" } });
  if (result.status !== "suspended" || !result.runId || !result.state) {
    throw new Error(`the run did not suspend: ${result.status}`);
  }
  return { runId: result.runId, state: result.state };
}

/** An agent as a new process builds it, whose approver approves what it is asked to check. */
function approving(directory?: string) {
  const { tools, deletions } = callbackTools();
  const agent = new Agent({
    model: new ScriptedModel([{ text: "deleted" }, { text: "deleted" }]),
    tools,
    approver: new ScriptedApprover([], { checks: ["approve", "approve"] }),
    ...(directory ? { runStore: new FileRunStore({ directory }) } : {}),
  });
  return { agent, deletions };
}

describe("an approval runs its call once, however often a state is resumed", () => {
  it("without a store: the same state resumed twice by its agent runs the approved call once", async () => {
    // Without a store the agent that used the approval remembers it (nothing
    // is process-wide); a store shares that record across agents and processes.
    const { state } = await suspend();
    const first = approving();
    const once = await first.agent.resume(state);
    const twice = await first.agent.resume(state);
    expect(once.status).toBe("completed");
    expect(first.deletions).toEqual([["cb-1", "cb-2"]]);
    const refused = twice.steps[0]?.toolCalls.find((call) => call.toolName === "delete_callbacks");
    expect(refused).toMatchObject({ status: "refused", approval: { code: "already_used" } });
    expect(toolMessagesById(twice.messages).call_delete).toMatchObject({
      error: "approval_refused",
      code: "already_used",
    });
  });

  it("with a FileRunStore: an answer naming no interaction is spent under the agent's approval id, so the run's file put back does not run it again", async () => {
    const directory = await makeDirectory();
    const { runId, state } = await suspend(directory);
    const file = new FileRunStore({ directory }).pathOf(runId);
    const suspendedText = await readFile(file, "utf8");
    // A resumed run's read whose approval names no interaction.
    const approveUnnamed = (check: ScriptedCheck) => ({
      outcome: "approved",
      fingerprint: check.pending.action.fingerprint,
    });
    const resumeWith = async () => {
      const { tools, deletions } = callbackTools();
      const agent = new Agent({
        model: new ScriptedModel([{ text: "deleted" }]),
        tools,
        approver: new ScriptedApprover([], { checks: [approveUnnamed] }),
        runStore: new FileRunStore({ directory }),
      });
      return { result: await agent.resume(state), deletions };
    };
    const first = await resumeWith();
    expect(first.deletions).toEqual([["cb-1", "cb-2"]]);
    await new FileRunStore({ directory }).delete(runId);
    await writeFile(file, suspendedText);
    const second = await resumeWith();
    expect(second.deletions).toEqual([]);
    expect(
      second.result.steps[0]?.toolCalls.find((call) => call.toolName === "delete_callbacks"),
    ).toMatchObject({ status: "refused", approval: { code: "already_used" } });
  });

  it("with a FileRunStore: a state resumed after its run was deleted is refused", async () => {
    const directory = await makeDirectory();
    const { runId, state } = await suspend(directory);
    const first = approving(directory);
    expect((await first.agent.resume(state)).status).toBe("completed");
    expect(await new FileRunStore({ directory }).delete(runId)).toBe(true);
    const second = approving(directory);
    const again = second.agent.resume(state);
    await expect(again).rejects.toThrow(RunNotResumableError);
    await expect(again).rejects.toThrow(`The run store holds no run "${runId}"`);
    await expect(again).rejects.toMatchObject({ hint: { startNewRun: true } });
    expect(second.deletions).toEqual([]);
    expect(first.deletions).toEqual([["cb-1", "cb-2"]]);
  });

  it("with a FileRunStore: the used-approval marker outlives the run's file being put back", async () => {
    const directory = await makeDirectory();
    const { runId, state } = await suspend(directory);
    const file = new FileRunStore({ directory }).pathOf(runId);
    const suspendedText = await readFile(file, "utf8");
    const first = approving(directory);
    expect((await first.agent.resume(runId)).status).toBe("completed");
    expect(await readdir(join(directory, "used-approvals"))).toHaveLength(1);
    await new FileRunStore({ directory }).delete(runId);
    await writeFile(file, suspendedText);
    const second = approving(directory);
    const result = await second.agent.resume(state);
    expect(second.deletions).toEqual([]);
    const call = result.steps[0]?.toolCalls.find(
      (record) => record.toolName === "delete_callbacks",
    );
    expect(call).toMatchObject({
      status: "refused",
      approval: { code: "already_used" },
    });
  });

  it("with a FileRunStore: a completed run is not run again when the saving clock was behind", async () => {
    const directory = await makeDirectory();
    const { runId, state } = await suspend(directory);
    const first = approving(directory);
    expect((await first.agent.resume(runId)).status).toBe("completed");
    // The completing process's clock ran an hour behind the one that suspended the run.
    const store = new FileRunStore({ directory });
    const completed = await store.load(runId);
    const earlier = new Date(Date.parse(state.updatedAt) - 3_600_000).toISOString();
    await store.save({ ...completed, updatedAt: earlier });
    const second = approving(directory);
    const again = second.agent.resume(state);
    await expect(again).rejects.toThrow(/holds another state .+status completed.+already ended/);
    await expect(again).rejects.toMatchObject({ hint: { startNewRun: true } });
    expect(second.deletions).toEqual([]);
  });

  it("counts saves in revision, in a run store and in the agent's own memory", async () => {
    const directory = await makeDirectory();
    const { runId, state } = await suspend(directory);
    expect(state.revision).toBeGreaterThan(0);
    expect((await new FileRunStore({ directory }).load(runId)).revision).toBe(state.revision);
    const resumed = await approving(directory).agent.resume(runId);
    expect(resumed.state?.revision).toBeGreaterThan(state.revision);
    // Without a store the agent keeps its runs in memory: they are counted too.
    const { state: inMemory } = await suspend();
    expect(inMemory.revision).toBeGreaterThan(0);
  });

  it("keeps the run's metadata, redacted, across a resume", async () => {
    const directory = await makeDirectory();
    const { tools } = callbackTools();
    const result = await new Agent({
      model: new ScriptedModel([listAndDelete]),
      tools,
      approver: new ScriptedApprover(["pending"]),
      runStore: new FileRunStore({ directory }),
    }).run("delete", {
      suspendOnApproval: true,
      metadata: { ticket: "OPS-7", token: "hunter2-secret" },
    });
    expect(result.state?.metadata).toEqual({ ticket: "OPS-7", token: "[redacted]" });
    const text = await readFile(new FileRunStore({ directory }).pathOf(result.runId ?? ""), "utf8");
    expect(text).not.toContain("hunter2-secret");
    const resumed = await approving(directory).agent.resume(result.runId ?? "");
    expect(resumed.state?.metadata).toEqual({ ticket: "OPS-7", token: "[redacted]" });
  });

  it("refuses metadata that is not an object of strings", async () => {
    const agent = new Agent({ model: new ScriptedModel([]) });
    await expect(
      agent.run("hi", { metadata: { count: 3 } as unknown as Record<string, string> }),
    ).rejects.toThrow("metadata must be an object whose values are strings.");
  });

  it("says what to do in RunNotResumableError.hint: take over a run marked running", async () => {
    const { state } = await suspend();
    const running = { ...state, status: "running" as const };
    const attempt = approving().agent.resume(running);
    await expect(attempt).rejects.toMatchObject({
      name: "RunNotResumableError",
      hint: { takeOver: true },
    });
  });
});
