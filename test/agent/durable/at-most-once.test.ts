import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import { RunStoreError } from "../../../src/agent/durable/durable-errors.js";
import type { RunState } from "../../../src/agent/durable/run-state.js";
import type { CallStartOutcome, RunStore } from "../../../src/agent/durable/run-store.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { callbackTools, toolMessagesById, useTemporaryDirectories } from "./durable-helpers.js";

const makeDirectory = useTemporaryDirectories();

/** `delete_callbacks` that reads the stored state while it runs, as a crash would leave it. */
function observingDeleteTool(store: RunStore, runId: string) {
  const seen: RunState[] = [];
  const executions: string[][] = [];
  const tool = defineTool({
    name: "delete_callbacks",
    description: "Deletes callbacks by id.",
    parameters: z.object({ ids: z.array(z.string()) }),
    needsApproval: true,
    execute: async ({ ids }) => {
      seen.push(await store.load(runId));
      executions.push(ids);
      return { deleted: ids.length };
    },
  });
  return { tool, seen, executions };
}

const deleteCall = {
  toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_delete" }],
};

describe("destructive calls run at most once", () => {
  it("records that an approved call started before it runs, and its result after, in an ordinary run", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const { tool, seen, executions } = observingDeleteTool(store, "cleanup-1");
    const result = await new Agent({
      model: new ScriptedModel([deleteCall, { text: "done" }]),
      tools: [tool],
      approver: new ScriptedApprover(["approve"]),
      runStore: store,
    }).run("delete cb-1", { runId: "cleanup-1" });

    expect(result.status).toBe("completed");
    expect(executions).toEqual([["cb-1"]]);
    expect(seen[0]).toMatchObject({ status: "running", stepCount: 1 });
    expect(seen[0]?.pendingCalls).toEqual([
      {
        toolCallId: "call_delete",
        toolName: "delete_callbacks",
        rawArguments: '{"ids":["cb-1"]}',
        arguments: { ids: ["cb-1"] },
        phase: "started",
        fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      },
    ]);
    const saved = await store.load("cleanup-1");
    expect(saved).toMatchObject({ status: "completed", stepCount: 2, pendingCalls: [] });
    expect(toolMessagesById(saved.messages)).toEqual({ call_delete: { deleted: 1 } });
  });

  it("does not run a call after a crash left it started: the state on disk at that moment is resumed", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const { tool, seen } = observingDeleteTool(store, "crash-1");
    await new Agent({
      model: new ScriptedModel([deleteCall, { text: "done" }]),
      tools: [tool],
      approver: new ScriptedApprover(["approve"]),
      runStore: store,
    }).run("delete cb-1", { runId: "crash-1" });
    const atCrash = seen[0];
    if (!atCrash) throw new Error("the tool did not run");
    await store.save(atCrash);

    const { tools, deletions } = callbackTools();
    const model = new ScriptedModel([{ text: "I will check the callbacks first." }]);
    const approver = new ScriptedApprover([], { checks: [] });
    const resumed = await new Agent({ model, tools, approver, runStore: store }).resume("crash-1", {
      takeOver: true,
    });
    expect(resumed.status).toBe("completed");
    expect(deletions).toEqual([]);
    expect(approver.requests).toHaveLength(0);
    expect(toolMessagesById(model.requests[0]?.messages ?? []).call_delete).toMatchObject({
      error: "outcome_unknown",
      read_only_tools: ["list_callbacks"],
    });
    expect(await store.load("crash-1")).toMatchObject({ status: "completed", pendingCalls: [] });
  });

  it("does not run an approved call whose start cannot be recorded, and fails the run", async () => {
    class FullDiskStore extends FileRunStore {
      override async startCall(): Promise<CallStartOutcome> {
        throw new Error("ENOSPC: no space left on device");
      }
    }
    const failing = new FullDiskStore({ directory: await makeDirectory() });
    const { tools, deletions } = callbackTools();
    const model = new ScriptedModel([deleteCall, { text: "done" }]);
    const result = await new Agent({
      model,
      tools,
      approver: new ScriptedApprover(["approve"]),
      runStore: failing,
    }).run("delete cb-1", { runId: "full-disk" });

    expect(deletions).toEqual([]);
    expect(model.requests).toHaveLength(1);
    expect(result.status).toBe("failed");
    expect(result.error).toBeInstanceOf(RunStoreError);
    expect(result.error?.message).toBe(
      'Could not record that call "call_delete" of run "full-disk" starts: ENOSPC: no space left on device',
    );
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({ status: "failed" });
    expect(JSON.parse(result.steps[0]?.toolCalls[0]?.content ?? "")).toMatchObject({
      error: "tool_failed",
      message: expect.stringContaining(
        "it was not run, because the run could not record that it started",
      ),
    });
  });

  it("keeps no secret in the saved state: arguments, tool-call text and results are redacted", async () => {
    const directory = await makeDirectory();
    const store = new FileRunStore({ directory });
    const secret = "cb-token-5e6f7a8b9c0d";
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY21lIn0.c2lnbmF0dXJl";
    const { tools } = callbackTools();
    const echo = defineTool({
      name: "show_session",
      description: "Shows the session.",
      parameters: z.object({}),
      execute: () => ({ session: { token: secret, note: `Bearer ${jwt}` } }),
    });
    const result = await new Agent({
      model: new ScriptedModel([
        {
          toolCalls: [
            { name: "delete_callbacks", arguments: { ids: ["cb-1"], token: secret } },
            { name: "show_session", arguments: {} },
          ],
        },
        { text: "done" },
      ]),
      tools: [...tools, echo],
      approver: new ScriptedApprover(["approve"]),
      runStore: store,
    }).run("delete cb-1", { runId: "secretive" });
    expect(result.status).toBe("completed");
    const text = JSON.stringify(await store.load("secretive"));
    expect(text).not.toContain(secret);
    expect(text).not.toContain(jwt);
    expect(text).toContain("[redacted]");
    expect(JSON.stringify(result.state)).not.toContain(secret);
  });
});
