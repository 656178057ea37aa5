import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { redactRunState } from "../../src/agent/durable/redact-run-state.js";
import type { RunState } from "../../src/agent/durable/run-state.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { Tool } from "../../src/tools/tool.js";
import { untilAborted } from "./fixtures.js";

const deleteCall = { name: "delete_items", arguments: { ids: ["a"] }, id: "call_1" };

type DeleteArguments = { ids: string[] };

function deleteTool(describeAction?: (args: DeleteArguments) => { summary: string }) {
  const ran: unknown[] = [];
  const tool = defineTool({
    name: "delete_items",
    description: "Deletes items.",
    parameters: z.object({ ids: z.array(z.string()) }),
    needsApproval: true,
    execute: (args) => {
      ran.push(structuredClone(args));
      return { deleted: args.ids.length };
    },
    ...(describeAction ? { describeAction } : {}),
  });
  return { tool, ran };
}

function messageOf(result: Awaited<ReturnType<Agent["run"]>>): Record<string, unknown> {
  const message = result.messages.find((entry) => entry.role === "tool");
  return JSON.parse(message?.content ?? "{}");
}

describe("an approved call runs with the arguments approved", () => {
  it("a describeAction that changes its arguments does not change what runs", async () => {
    const { tool, ran } = deleteTool((args) => {
      args.ids.push("everything");
      return { summary: "Delete items." };
    });
    const approver = new ScriptedApprover(["approve"]);
    const model = new ScriptedModel([{ toolCalls: [deleteCall] }, { text: "done" }]);
    await new Agent({ model, tools: [tool], approver }).run("go");
    expect(ran).toEqual([{ ids: ["a"] }]);
    expect(approver.requests[0]?.action.arguments).toEqual({ ids: ["a"] });
  });

  it("an approver that changes the action's arguments does not change what runs", async () => {
    const { tool, ran } = deleteTool();
    const approver = new ScriptedApprover([
      (action) => {
        (action.arguments as { ids: string[] }).ids.push("everything");
        return { outcome: "approved", fingerprint: action.fingerprint };
      },
    ]);
    const model = new ScriptedModel([{ toolCalls: [deleteCall] }, { text: "done" }]);
    await new Agent({ model, tools: [tool], approver }).run("go");
    expect(ran).toEqual([{ ids: ["a"] }]);
  });

  it("refuses a call whose arguments changed after approval (fingerprint_mismatch)", async () => {
    let kept: { when: Date } | undefined;
    const ran: unknown[] = [];
    // A tool built by hand: its own checkArguments turns the ISO text into a Date.
    const tool: Tool<{ when: Date }, string> = {
      name: "schedule_purge",
      description: "Purges at a time.",
      parameters: { type: "object", properties: { when: { type: "string" } } },
      checkArguments: (args) => ({
        success: true,
        data: { when: new Date(String((args as { when?: unknown }).when)) },
      }),
      needsApproval: (args) => {
        kept = args;
        return true;
      },
      execute: async (args) => {
        ran.push(args);
        return "ok";
      },
    };
    const approver = new ScriptedApprover([
      (action) => {
        kept?.when.setTime(0); // a Date stays mutable when frozen
        return { outcome: "approved", fingerprint: action.fingerprint };
      },
    ]);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "schedule_purge", arguments: { when: "2030-01-01T00:00:00Z" } }] },
      { text: "done" },
    ]);
    const result = await new Agent({ model, tools: [tool], approver }).run("go");
    expect(ran).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: { code: "fingerprint_mismatch" },
    });
  });

  it("refuses, without failing the run, a call needing approval whose arguments JSON cannot hold", async () => {
    const ran: unknown[] = [];
    const tool = defineTool({
      name: "tag_items",
      description: "Tags items.",
      parameters: z.object({ tags: z.array(z.string()).transform((tags) => new Set(tags)) }),
      needsApproval: true,
      execute: (args) => {
        ran.push(args);
        return "ok";
      },
    });
    const approver = new ScriptedApprover(["approve"]);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "tag_items", arguments: { tags: ["x"] } }] },
      { text: "done" },
    ]);
    const result = await new Agent({ model, tools: [tool], approver }).run("go");
    expect(result.status).toBe("completed");
    expect(ran).toEqual([]);
    expect(approver.requests).toEqual([]);
    expect(messageOf(result)).toMatchObject({
      error: "approval_refused",
      code: "not_fingerprintable",
    });
    expect(String(messageOf(result).reason)).toContain("a Set has no faithful JSON form");
  });
});

describe("tool messages", () => {
  it("redact the secrets of a plain object a tool throws", async () => {
    const tool = defineTool({
      name: "leaky",
      description: "Throws an object.",
      parameters: z.object({}),
      execute: () => {
        throw { token: "tok-12345678", secret_phrase: "open sesame", detail: "boom" };
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "leaky", arguments: {} }] },
      { text: "ok" },
    ]);
    const result = await new Agent({ model, tools: [tool] }).run("go");
    const content = result.messages.find((message) => message.role === "tool")?.content ?? "";
    expect(content).toContain("boom");
    expect(content).not.toContain("tok-12345678");
    expect(content).not.toContain("open sesame");
  });

  it("say an aborted call that had started may or may not have taken effect", async () => {
    const controller = new AbortController();
    const tool = defineTool({
      name: "slow_write",
      description: "Writes slowly.",
      parameters: z.object({}),
      execute: (_args, { signal }) => {
        controller.abort();
        return untilAborted(signal);
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "slow_write", arguments: {} }] }]);
    const result = await new Agent({ model, tools: [tool] }).run("go", {
      signal: controller.signal,
    });
    expect(result.status).toBe("aborted");
    expect(messageOf(result)).toMatchObject({ error: "aborted" });
    expect(String(messageOf(result).message)).toContain("may or may not have taken effect");
  });
});

describe("durable runs journal every call that may change something", () => {
  it("records a write needing no approval as started before it runs, and a read-only one not", async () => {
    const directory = await mkdtemp(join(tmpdir(), "switchyard-journal-"));
    try {
      const store = new FileRunStore({ directory });
      const phases: Record<string, string | undefined> = {};
      const runId = "run_journal_test";
      const phaseOf = async (toolCallId: string) =>
        (await store.load(runId)).pendingCalls.find((call) => call.toolCallId === toolCallId)
          ?.phase;
      const write = defineTool({
        name: "create_items",
        description: "Creates items.",
        parameters: z.object({}),
        execute: async () => {
          phases.write = await phaseOf("call_write");
          return "created";
        },
      });
      const read = defineTool({
        name: "list_items",
        description: "Lists items.",
        parameters: z.object({}),
        readOnly: true,
        execute: async () => {
          phases.read = await phaseOf("call_read");
          return [];
        },
      });
      const model = new ScriptedModel([
        {
          toolCalls: [
            { name: "create_items", arguments: {}, id: "call_write" },
            { name: "list_items", arguments: {}, id: "call_read" },
          ],
        },
        { text: "done" },
      ]);
      const agent = new Agent({ model, tools: [write, read], runStore: store, toolConcurrency: 1 });
      expect((await agent.run("go", { runId })).status).toBe("completed");
      expect(phases).toEqual({ write: "started", read: "requested" });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe("redactRunState", () => {
  function stateWithArguments(text: string): RunState {
    return {
      format: "switchyard.run-state",
      version: 1,
      runId: "run_1",
      revision: 0,
      status: "running",
      createdAt: "2025-05-12T09:30:00.000Z",
      updatedAt: "2025-05-12T09:30:00.000Z",
      maxSteps: 5,
      stepCount: 1,
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      messages: [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: text } }],
        },
      ],
      pendingCalls: [{ toolCallId: "c1", toolName: "t", rawArguments: text, phase: "requested" }],
    };
  }

  it.each([
    ["double-encoded JSON", JSON.stringify(JSON.stringify({ ids: ["a"], token: "s3cr3t-value" }))],
    ["JSON with a trailing comma", '{"ids":["a"],"password":"s3cr3t-value",}'],
    ["truncated double-encoded JSON", '"{\\"api_key\\":\\"s3cr3t-value\\",\\"ids\\":[\\"a\\"'],
  ])("removes secrets from %s", (_kind, text) => {
    const redacted = JSON.stringify(redactRunState(stateWithArguments(text)));
    expect(redacted).not.toContain("s3cr3t-value");
    expect(redacted).toContain("[redacted]");
  });

  it("keeps arguments without secrets byte for byte", () => {
    const text = '{ "ids": ["a"] }';
    expect(redactRunState(stateWithArguments(text)).pendingCalls[0]?.rawArguments).toBe(text);
  });
});
