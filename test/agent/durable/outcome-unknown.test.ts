import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { RunState } from "../../../src/agent/durable/run-state.js";
import type { RunStore } from "../../../src/agent/durable/run-store.js";
import { runCli } from "../../../src/cli/run-cli.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { createTestIo } from "../../cli/cli-test-io.js";
import { captureLogger } from "../../helpers/capture-logger.js";
import { callbackTools, toolMessagesById, useTemporaryDirectories } from "./durable-helpers.js";

const makeDirectory = useTemporaryDirectories();

/**
 * Leaves run `runId` in `store` as a worker killed mid-call leaves it: its
 * approved deletion `started`, with no result.
 */
async function killedMidCall(store: RunStore, runId: string): Promise<void> {
  let atCall: RunState | undefined;
  const tool = defineTool({
    name: "delete_callbacks",
    description: "Deletes callbacks by id.",
    parameters: z.object({ ids: z.array(z.string()) }),
    needsApproval: true,
    execute: async ({ ids }) => {
      atCall = await store.load(runId);
      return { deleted: ids.length };
    },
  });
  await new Agent({
    model: new ScriptedModel([
      { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_1" }] },
      { text: "done" },
    ]),
    tools: [tool],
    approver: new ScriptedApprover(["approve"]),
    runStore: store,
  }).run("delete cb-1", { runId });
  if (!atCall) throw new Error("the deletion did not run");
  await store.save(atCall);
}

describe("a run with a call of unknown outcome says so", () => {
  it("in its result, its summary, `switchyard runs` and `runs show`, the audit log and the model's tool message", async () => {
    const directory = await makeDirectory();
    const store = new FileRunStore({ directory });
    await killedMidCall(store, "lost-1");

    const { logger, text } = captureLogger("info");
    const { tools, deletions } = callbackTools();
    const model = new ScriptedModel([{ text: "I will check the callbacks first." }]);
    const result = await new Agent({
      model,
      tools,
      approver: new ScriptedApprover([]),
      runStore: store,
      logger,
    }).resume("lost-1", { takeOver: true });

    expect(deletions).toEqual([]);
    expect(result.status).toBe("completed");
    const lost = { toolCallId: "call_1", toolName: "delete_callbacks", stepNumber: 1 };
    expect(result.outcomeUnknownCalls).toEqual([lost]);
    const told = toolMessagesById(model.requests[0]?.messages ?? []).call_1 as { message: string };
    expect(told).toMatchObject({ error: "outcome_unknown" });
    expect(told.message).toMatch(/^Outcome unknown: the call to delete_callbacks had started/);

    const { runs } = await store.list();
    expect(runs[0]).toMatchObject({ runId: "lost-1", status: "completed" });
    expect(runs[0]?.outcomeUnknownCalls).toEqual([lost]);

    const audit = text()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.audit === "tool-call");
    expect(audit).toEqual([
      expect.objectContaining({
        tool: "delete_callbacks",
        toolCallId: "call_1",
        outcome: "outcome_unknown",
        msg: expect.stringMatching(/^outcome unknown: delete_callbacks had started/),
      }),
    ]);

    const listed = createTestIo({ env: { SWITCHYARD_STATE_DIR: directory } });
    expect(await runCli(["runs"], listed.io)).toBe(0);
    expect(listed.stdout()).toContain("completed, outcome unknown: delete_callbacks (call_1)");
    const shown = createTestIo({ env: { SWITCHYARD_STATE_DIR: directory } });
    expect(await runCli(["runs", "show", "lost-1"], shown.io)).toBe(0);
    expect(shown.stdout()).toContain("status:    completed, outcome unknown: 1 call(s)");
    expect(shown.stdout()).toMatch(
      /step 1 {2}delete_callbacks .* {2}outcome unknown {2}\[call_1\]/,
    );
    const json = createTestIo({ env: { SWITCHYARD_STATE_DIR: directory } });
    expect(await runCli(["runs", "--json"], json.io)).toBe(0);
    expect(JSON.parse(json.stdout()).runs[0].outcomeUnknownCalls).toEqual([lost]);
  });

  it("a run whose calls all finished has no outcomeUnknownCalls", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const { tools } = callbackTools();
    const result = await new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_1" }] },
        { text: "done" },
      ]),
      tools,
      approver: new ScriptedApprover(["approve"]),
      runStore: store,
    }).run("delete cb-1", { runId: "clean-1" });
    expect(result.status).toBe("completed");
    expect(result.outcomeUnknownCalls).toBeUndefined();
    expect((await store.list()).runs[0]?.outcomeUnknownCalls).toBeUndefined();
  });
});
