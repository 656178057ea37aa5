import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import { RunNotResumableError, RunStateError } from "../../../src/agent/durable/durable-errors.js";
import { parseRunState } from "../../../src/agent/durable/parse-run-state.js";
import type { RunState } from "../../../src/agent/durable/run-state.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { callbackTools, toolMessagesById } from "./durable-helpers.js";

const fixturePath = fileURLToPath(
  new URL("../../fixtures/run-state/v1-suspended.json", import.meta.url),
);

async function fixtureText(): Promise<string> {
  return readFile(fixturePath, "utf8");
}

async function fixture(): Promise<Record<string, unknown>> {
  return JSON.parse(await fixtureText()) as Record<string, unknown>;
}

function parseError(input: unknown, source = "runs/x.json"): RunStateError {
  try {
    parseRunState(input, source);
  } catch (error) {
    if (error instanceof RunStateError) return error;
    throw error;
  }
  throw new Error("parseRunState accepted the input");
}

describe("released run-state versions stay readable", () => {
  it("reads the version 1 fixture as written", async () => {
    const state = parseRunState(await fixtureText(), fixturePath);
    expect(state).toMatchObject({
      format: "switchyard.run-state",
      version: 1,
      runId: "run_20250512T093000Z_5f3a9c1e",
      status: "suspended",
      stepCount: 2,
      maxSteps: 10,
      usage: { promptTokens: 290, completionTokens: 48, totalTokens: 338 },
    });
    expect(state.messages).toHaveLength(5);
    expect(state.pendingCalls.map((call) => [call.toolCallId, call.phase])).toEqual([
      ["call_list_2", "finished"],
      ["call_delete_1", "awaiting_approval"],
    ]);
  });

  it("refuses to resume the version 1 fixture's open question, saying what to do: its answer is bound to no approval id", async () => {
    const state = parseRunState(await fixtureText(), fixturePath);
    const { tools, deletions } = callbackTools();
    const model = new ScriptedModel([{ text: "Deleted cb-1 and cb-2." }]);
    const approver = new ScriptedApprover([], { checks: ["approve"] });
    const resuming = new Agent({ model, tools, approver }).resume(state);
    await expect(resuming).rejects.toThrow(RunNotResumableError);
    await expect(resuming).rejects.toThrow(
      /waits for the answer to delete_callbacks \(interaction [^)]+\), asked by an earlier version of switchyard-agents.*switchyard runs cancel run_20250512T093000Z_5f3a9c1e/,
    );
    expect(deletions).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it("resumes the version 1 fixture once its question is read by approval id: the approved deletion runs once, the step count goes on", async () => {
    const read = parseRunState(await fixtureText(), fixturePath);
    const state = {
      ...read,
      pendingCalls: read.pendingCalls.map((call) =>
        call.phase === "awaiting_approval"
          ? { ...call, approvalId: `${read.runId}.3q2-7wEiRKe8sYdq5Bn0WQ`, ticket: "t-1" }
          : call,
      ),
    };
    const { tools, deletions } = callbackTools();
    const model = new ScriptedModel([{ text: "Deleted cb-1 and cb-2." }]);
    const approver = new ScriptedApprover([], { checks: ["approve"] });
    const result = await new Agent({ model, tools, approver }).resume(state);
    expect(result.status).toBe("completed");
    expect(deletions).toEqual([["cb-1", "cb-2"]]);
    expect(result.steps.map((step) => step.stepNumber)).toEqual([2, 3]);
    expect(result.usage.promptTokens).toBe(290);
    expect(toolMessagesById(model.requests[0]?.messages ?? [])).toEqual({
      call_list_1: { callbacks: ["cb-1", "cb-2", "cb-3"] },
      call_list_2: { callbacks: ["cb-1", "cb-2", "cb-3"] },
      call_delete_1: { deleted: 2 },
    });
  });
});

describe("every finished call a run records stays readable", () => {
  it("reads a finished call of each status, an expired question's included", async () => {
    const statuses = [
      "succeeded",
      "invalid_arguments",
      "unknown_tool",
      "failed",
      "timed_out",
      "refused",
      "expired",
      "aborted",
      "outcome_unknown",
    ];
    const state = {
      ...(await fixture()),
      finishedCalls: statuses.map((status, index) => ({
        toolCallId: `call_${index}`,
        toolName: "delete_callbacks",
        stepNumber: 1,
        status,
      })),
    };
    expect(parseRunState(state).finishedCalls?.map((call) => call.status)).toEqual(statuses);
  });
});

describe("a state that is not a readable run state is refused, never misread", () => {
  it("names the file and says corrupted JSON is not valid JSON", async () => {
    const text = await fixtureText();
    const error = parseError(text.slice(0, text.length / 2), "/state/runs/run_1.json");
    expect(error.source).toBe("/state/runs/run_1.json");
    expect(error.message).toMatch(
      /^Invalid run state \(\/state\/runs\/run_1\.json\): it is not valid JSON \(.+\); the file may be truncated or corrupted$/,
    );
  });

  it("refuses JSON without the format marker as not a run state", () => {
    const error = parseError({ version: 1, messages: [] });
    expect(error.message).toContain(
      'it has no "format" marker, so it is not a Switchyard run state (expected "format": "switchyard.run-state")',
    );
  });

  it("refuses another format marker", async () => {
    const error = parseError({ ...(await fixture()), format: "acme.workflow" });
    expect(error.problems).toEqual([
      'its "format" is "acme.workflow", not "switchyard.run-state": it is not a Switchyard run state',
    ]);
  });

  it("refuses a newer version and says to upgrade", async () => {
    const error = parseError({ ...(await fixture()), version: 2 });
    expect(error.message).toContain(
      "it was written in run-state format version 2, newer than this Switchyard reads (1 to 1); upgrade Switchyard to resume it",
    );
  });

  it.each([[0], ["1"], [1.5], [undefined]])("refuses version %j", async (version) => {
    const error = parseError({ ...(await fixture()), version });
    expect(error.message).toContain('its "version" must be a positive integer');
  });

  it("lists every wrong field at once", async () => {
    const broken = {
      ...(await fixture()),
      runId: "../../etc/passwd",
      status: "paused",
      stepCount: -1,
      usage: { promptTokens: "many" },
      messages: [{ role: "robot" }, { role: "tool", content: "x" }],
    };
    const error = parseError(broken);
    expect(error.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^run id "\.\.\/\.\.\/etc\/passwd" is not valid/),
        'status must be one of running, suspended, completed, max_steps, approval_expired, budget_exhausted, aborted, failed; got "paused"',
        "stepCount must be an integer of 0 or more",
        "usage.promptTokens must be a number of 0 or more",
        'messages[0].role must be system, user, assistant, tool or function; got "robot"',
        "messages[1].tool_call_id must be a non-empty string",
      ]),
    );
  });

  it("refuses pending calls that are not the last assistant message's calls", async () => {
    const state = (await fixture()) as unknown as RunState;
    const error = parseError({ ...state, messages: state.messages.slice(0, 4) });
    expect(error.problems).toEqual([
      "pendingCalls must be the tool calls of the last message: an assistant message asking for the same ids in the same order",
    ]);
  });

  it("refuses a call awaiting approval that names no approval id and ticket", async () => {
    const state = (await fixture()) as unknown as RunState;
    const calls = state.pendingCalls.map((call) => ({ ...call, interactionId: undefined }));
    const error = parseError({ ...state, pendingCalls: calls });
    expect(error.problems).toContain(
      "pendingCalls[1] is awaiting_approval but names no approvalId and ticket to read the answer with",
    );
  });

  it("refuses a resume from a state that is not one, before anything runs", async () => {
    const model = new ScriptedModel([]);
    const agent = new Agent({ model, approver: new ScriptedApprover([]) });
    await expect(agent.resume({ format: "other" } as unknown as RunState)).rejects.toThrow(
      /^Invalid run state \(the value given\): its "format" is "other"/,
    );
    expect(model.requests).toHaveLength(0);
  });
});
