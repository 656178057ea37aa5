import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import { RunStateError } from "../../../src/agent/durable/durable-errors.js";
import type { RunState } from "../../../src/agent/durable/run-state.js";
import { actionFingerprint } from "../../../src/internal/canonical-json.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { callbackTools, listAndDelete, useTemporaryDirectories } from "./durable-helpers.js";

const makeDirectory = useTemporaryDirectories();
const stateKey = "5f0c2e9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d";

/** Suspends a run on the approval of `delete_callbacks` in a FileRunStore, sealed with `stateKey`. */
async function suspendSealed(directory: string): Promise<{ runId: string; file: string }> {
  const result = await new Agent({
    model: new ScriptedModel([listAndDelete]),
    tools: callbackTools().tools,
    approver: new ScriptedApprover(["pending"]),
    runStore: new FileRunStore({ directory }),
    stateKey,
  }).run("delete cb-1 and cb-2", { suspendOnApproval: true });
  if (result.status !== "suspended" || !result.runId) throw new Error(result.status);
  return { runId: result.runId, file: new FileRunStore({ directory }).pathOf(result.runId) };
}

/** An agent as a new process builds it, whose approver approves what it checks. */
function approving(directory: string, key: string | undefined = stateKey) {
  const { tools, deletions } = callbackTools();
  const agent = new Agent({
    model: new ScriptedModel([{ text: "deleted" }]),
    tools,
    approver: new ScriptedApprover([], { checks: ["approve"] }),
    runStore: new FileRunStore({ directory }),
    ...(key !== undefined ? { stateKey: key } : {}),
  });
  return { agent, deletions };
}

describe("a sealed run state (stateKey)", () => {
  it("carries a seal, and resumes with the same key", async () => {
    const directory = await makeDirectory();
    const { runId, file } = await suspendSealed(directory);
    const saved = JSON.parse(await readFile(file, "utf8")) as RunState;
    expect(saved.seal).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(await readFile(file, "utf8")).not.toContain(stateKey);
    const { agent, deletions } = approving(directory);
    expect((await agent.resume(runId)).status).toBe("completed");
    expect(deletions).toEqual([["cb-1", "cb-2"]]);
  });

  it("refuses a state whose arguments were edited and their fingerprint recomputed", async () => {
    const directory = await makeDirectory();
    const { runId, file } = await suspendSealed(directory);
    const state = JSON.parse(await readFile(file, "utf8")) as RunState;
    // What an attacker with write access to the state directory would do.
    const edited = { ids: ["cb-3"] };
    const call = state.pendingCalls.find((pending) => pending.toolName === "delete_callbacks")!;
    call.arguments = edited;
    call.rawArguments = JSON.stringify(edited);
    call.fingerprint = actionFingerprint("delete_callbacks", edited);
    const last = state.messages.at(-1);
    if (last?.role === "assistant") {
      for (const toolCall of last.tool_calls ?? []) {
        if (toolCall.id === call.toolCallId) toolCall.function.arguments = JSON.stringify(edited);
      }
    }
    await writeFile(file, JSON.stringify(state));

    const { agent, deletions } = approving(directory);
    const resumed = agent.resume(runId);
    await expect(resumed).rejects.toThrow(RunStateError);
    await expect(resumed).rejects.toThrow(/seal does not match/);
    expect(deletions).toEqual([]);
  });

  it("refuses an older copy of the state put back after its approval was used", async () => {
    const directory = await makeDirectory();
    const { runId, file } = await suspendSealed(directory);
    const olderCopy = await readFile(file, "utf8");
    const first = approving(directory);
    expect((await first.agent.resume(runId)).status).toBe("completed");
    expect(first.deletions).toEqual([["cb-1", "cb-2"]]);

    await writeFile(file, olderCopy);
    const second = approving(directory);
    const resumed = second.agent.resume(runId);
    await expect(resumed).rejects.toThrow(RunStateError);
    await expect(resumed).rejects.toThrow(/older copy/);
    expect(second.deletions).toEqual([]);
  });

  it("refuses a state sealed with another key, or never sealed", async () => {
    const directory = await makeDirectory();
    const { runId } = await suspendSealed(directory);
    const other = approving(directory, "another-key-0000000000000000000000000000");
    await expect(other.agent.resume(runId)).rejects.toThrow(/seal does not match/);

    const unsealedDirectory = await makeDirectory();
    const unsealed = await new Agent({
      model: new ScriptedModel([listAndDelete]),
      tools: callbackTools().tools,
      approver: new ScriptedApprover(["pending"]),
      runStore: new FileRunStore({ directory: unsealedDirectory }),
    }).run("delete cb-1 and cb-2", { suspendOnApproval: true });
    const keyed = approving(unsealedDirectory);
    await expect(keyed.agent.resume(unsealed.runId!)).rejects.toThrow(/carries no seal/);
    expect(other.deletions).toEqual([]);
    expect(keyed.deletions).toEqual([]);
  });

  it("refuses a short key", () => {
    expect(() => new Agent({ model: new ScriptedModel([]), stateKey: "short" })).toThrow(
      /stateKey must be a string of at least 32 characters/,
    );
  });
});
