import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { callbackTools } from "./durable-helpers.js";

const deleteCall = {
  toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_delete" }],
};

const secret = "sk-live-0123456789abcdef";

describe("an agent without a runStore keeps its runs in memory", () => {
  it("gives every run an id, and the state it ends with when asked for one, without the agent's secrets", async () => {
    const echo = defineTool({
      name: "echo",
      description: "Answers with what it was given.",
      parameters: z.object({ note: z.string() }),
      execute: ({ note }) => ({ note }),
    });
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "echo", arguments: { note: `key ${secret}` }, id: "call_echo" }] },
        { text: "done" },
        { text: "done" },
      ]),
      tools: [echo],
      secrets: [secret],
    });
    const result = await agent.run(`remember ${secret}`, { runId: "kept-run" });
    expect(result.status).toBe("completed");
    expect(result.runId).toBe("kept-run");
    expect(result.state).toMatchObject({ runId: "kept-run", status: "completed", stepCount: 2 });
    expect(result.state?.messages).toHaveLength(4);
    expect(JSON.stringify(result.state)).not.toContain(secret);
    expect(JSON.stringify(result.state)).toContain("[redacted]");
    // A run that asked for neither a runId nor suspendOnApproval has an id,
    // and its state is not built: nothing can resume an ended run.
    const plain = await agent.run("again");
    expect(plain.runId).toMatch(/^run_\d{8}T\d{6}Z_[0-9a-f]{8}$/);
    expect(plain.state).toBeUndefined();
  });

  it("runs a call once per start: a second start of the same call is refused", async () => {
    const { tools, deletions } = callbackTools();
    const agent = new Agent({
      model: new ScriptedModel([deleteCall, { text: "done" }, { text: "done" }]),
      tools,
      approver: new ScriptedApprover(["pending"], { checks: ["approve"] }),
    });
    const suspended = await agent.run("delete cb-1", { suspendOnApproval: true });
    expect(suspended.status).toBe("suspended");
    const state = suspended.state;
    if (!state) throw new Error("a suspended run has a state");
    expect((await agent.resume(state)).status).toBe("completed");
    // The same suspended state again: its approval was spent, and the call
    // it started is never run a second time.
    const again = await agent.resume(state);
    expect(deletions).toEqual([["cb-1"]]);
    expect(again.status).not.toBe("suspended");
  });

  it("keeps the starts of a resumed run: the same step asked again of a copy runs nothing twice", async () => {
    const { tools, deletions } = callbackTools();
    const notes: string[] = [];
    const note = defineTool({
      name: "note",
      description: "Writes a note.",
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => {
        notes.push(text);
        return { written: true };
      },
    });
    const noteCall = (id: string) => ({
      toolCalls: [{ name: "note", arguments: { text: "cb-1 deleted" }, id }],
    });
    const agent = new Agent({
      model: new ScriptedModel([
        deleteCall,
        noteCall("call_note_1"),
        { text: "done" },
        noteCall("call_note_2"),
        { text: "done" },
      ]),
      tools: [...tools, note],
      approver: new ScriptedApprover(["pending"], { checks: ["approve", "approve"] }),
    });
    const suspended = await agent.run("delete cb-1, then note it", { suspendOnApproval: true });
    const state = suspended.state;
    if (!state) throw new Error("a suspended run has a state");
    expect((await agent.resume(state)).status).toBe("completed");
    expect(notes).toEqual(["cb-1 deleted"]);
    // The same suspended state again: the model asks for the same note under
    // a new id in the same step; the run's start record of it stays.
    const again = await agent.resume(state);
    expect(deletions).toEqual([["cb-1"]]);
    expect(notes).toEqual(["cb-1 deleted"]);
    const noteRecord = again.steps
      .flatMap((step) => step.toolCalls)
      .find((call) => call.toolName === "note");
    expect(noteRecord?.toolCallId).toBe("call_note_2");
    expect(noteRecord?.status).not.toBe("succeeded");
  });

  it("resumes a suspended run by id, and forgets it once it ended", async () => {
    const { tools, deletions } = callbackTools();
    const agent = new Agent({
      model: new ScriptedModel([deleteCall, { text: "done" }]),
      tools,
      approver: new ScriptedApprover(["pending"], { checks: ["approve"] }),
    });
    const suspended = await agent.run("delete cb-1", { suspendOnApproval: true });
    expect(suspended.status).toBe("suspended");
    const resumed = await agent.resume(suspended.runId ?? "");
    expect(resumed.status).toBe("completed");
    expect(deletions).toEqual([["cb-1"]]);
    await expect(agent.resume(suspended.runId ?? "")).rejects.toThrow(
      /is not in this agent's memory/,
    );
  });
});
