import { describe, expect, it } from "vitest";
import type { ModelStreamEvent } from "../../src/agent/model.js";
import { AbortedError } from "../../src/errors/transport-errors.js";
import { ScriptedApprover, ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { askOne, readOne } from "../helpers/approver-verbs.js";
import { forever } from "./fixtures.js";

const steps: ScriptedStep[] = [
  {
    reasoning: "think",
    text: "Calling two tools.",
    toolCalls: [
      { name: "a", arguments: { x: 1 } },
      { name: "b", arguments: "{broken", id: "given-id" },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
  },
];

describe("ScriptedModel", () => {
  it("answers complete() from the script and records the requests", async () => {
    const model = new ScriptedModel(steps);
    const request = { messages: [{ role: "user" as const, content: "hi" }] };
    const completion = await model.complete(request);
    expect(model.requests).toEqual([request]);
    expect(model.remaining).toBe(0);
    expect(completion.choices[0]).toEqual({
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: "Calling two tools.",
        reasoning: "think",
        tool_calls: [
          { id: "call_1_0", type: "function", function: { name: "a", arguments: '{"x":1}' } },
          { id: "given-id", type: "function", function: { name: "b", arguments: "{broken" } },
        ],
      },
    });
    expect(completion.usage).toEqual({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
  });

  it("streams events that assemble into its final completion, equal to complete()", async () => {
    const stream = new ScriptedModel(steps).stream({ messages: [] });
    const events: ModelStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const text = events.map((event) => (event.type === "text-delta" ? event.delta : "")).join("");
    const args = events.map((event) =>
      event.type === "tool-call-delta" && event.toolCallIndex === 0 ? event.argumentsDelta : "",
    );
    expect(text).toBe("Calling two tools.");
    expect(args.join("")).toBe('{"x":1}');
    expect(events.at(-1)).toEqual({
      type: "finish",
      choiceIndex: 0,
      finishReason: "tool_calls",
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    });
    expect(await stream.finalCompletion()).toEqual(
      await new ScriptedModel(steps).complete({ messages: [] }),
    );
  });

  it("says clearly when it runs past the script", async () => {
    const model = new ScriptedModel([{ text: "only" }]);
    await model.complete({ messages: [] });
    await expect(model.complete({ messages: [] })).rejects.toThrow(
      "ScriptedModel: request 2 came in, but the script has only 1 step(s); add a step for it.",
    );
    await expect(model.stream({ messages: [] }).finalCompletion()).rejects.toThrow(
      "request 3 came in",
    );
  });

  it("stops waiting when the call's signal fires", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([() => forever()]);
    const pending = model.complete({ messages: [] }, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
  });
});

describe("ScriptedApprover", () => {
  it("answers per call and throws past its script", async () => {
    const approver = new ScriptedApprover(["approve", "deny"]);
    const action = {
      approvalId: "run.approval",
      toolName: "t",
      toolCallId: "c",
      arguments: {},
      fingerprint: "sha256:1",
      description: { summary: "s" },
    };
    const context = { signal: new AbortController().signal, logger: undefined as never };
    expect((await askOne(approver, action, context)).decision).toEqual({
      outcome: "approved",
      fingerprint: "sha256:1",
    });
    expect((await askOne(approver, action, context)).decision).toMatchObject({
      outcome: "refused",
      code: "denied",
    });
    await expect(askOne(approver, action, context)).rejects.toThrow("approval request 3 came in");
    expect(approver.requests).toHaveLength(3);
  });

  it("answers a later read of a question (a resumed run's) from its checks", async () => {
    const approver = new ScriptedApprover(["pending"], { checks: ["approve"] });
    const action = {
      approvalId: "run.approval",
      toolName: "t",
      toolCallId: "c",
      arguments: {},
      fingerprint: "sha256:1",
      description: { summary: "s" },
    };
    const context = { signal: new AbortController().signal, logger: undefined as never };
    const { ticket, decision } = await askOne(approver, action, context);
    expect(decision).toEqual({ outcome: "pending" });
    expect(await readOne(approver, ticket, action, context)).toEqual({
      outcome: "approved",
      fingerprint: "sha256:1",
    });
    expect(approver.checkRequests).toEqual([{ pending: { ticket, action }, context }]);
    await expect(readOne(approver, ticket, action, context)).rejects.toThrow(
      "approval check 2 came in",
    );
  });
});
