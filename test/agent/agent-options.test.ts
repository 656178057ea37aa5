import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { ScriptedModel } from "../../src/testing/index.js";
import type { AnyTool } from "../../src/tools/tool.js";
import { addNumbersTool } from "./fixtures.js";

function problemsOf(build: () => unknown): readonly string[] {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).problems;
  }
  throw new Error("expected a ConfigurationError");
}

describe("Agent construction", () => {
  const model = new ScriptedModel([]);

  it("names every bad option in one error", () => {
    const problems = problemsOf(
      () =>
        new Agent({
          model,
          maxSteps: 0,
          toolConcurrency: 1.5,
          toolTimeoutMs: "fast" as unknown as number,
          maxStep: 3,
        } as never),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^Unknown option "maxStep"; known options: model, tools/),
      "maxSteps must be a positive integer; got 0.",
      "toolConcurrency must be a positive integer; got 1.5.",
      'toolTimeoutMs must be a positive integer; got "fast".',
    ]);
  });

  it("refuses duplicate tool names at construction", () => {
    const first = addNumbersTool().tool;
    const second = addNumbersTool().tool;
    expect(problemsOf(() => new Agent({ model, tools: [first, second] }))).toEqual([
      'Tool name "add_numbers" is used by 2 tools; tool names must be unique within an agent.',
    ]);
  });

  it("checks hand-built tools too", () => {
    const handBuilt = { ...addNumbersTool().tool, name: "no spaces allowed" } as AnyTool;
    expect(problemsOf(() => new Agent({ model, tools: [handBuilt] }))[0]).toMatch(
      /^tools\[0\]: Tool name "no spaces allowed" is invalid/,
    );
  });

  it("refuses a missing model, a bad approver and request fields the agent owns", () => {
    const problems = problemsOf(
      () =>
        new Agent({
          model: {} as never,
          approver: {} as never,
          requestOptions: { messages: [], n: 2 } as never,
        }),
    );
    expect(problems).toEqual([
      "model must implement complete() and stream() (e.g. a ReasonerClient).",
      "approver must have ask() and read() methods (an Approver); an approver written for an earlier version has requestApproval() instead: see the migration guide.",
      "requestOptions.messages is set by the agent; remove it (tools go in the tools option).",
      "requestOptions.n must be 1 when given: the agent follows a single answer.",
    ]);
  });

  it("refuses a run store that lacks a method of the RunStore contract, naming each", async () => {
    const { FileRunStore } = await import("../../src/stores/file-run-store.js");
    const whole = new FileRunStore({ directory: "/nonexistent/not-written" });
    // A store of someone's own from before the start write: everything but startCall and isApprovalUsed.
    const partial = {
      ...Object.fromEntries(
        Object.getOwnPropertyNames(FileRunStore.prototype)
          .filter((name) => !["constructor", "startCall", "isApprovalUsed"].includes(name))
          .map((name) => [name, () => undefined]),
      ),
    };
    const problems = problemsOf(() => new Agent({ model, runStore: partial as never }));
    expect(problems).toEqual([
      expect.stringMatching(
        /^runStore must implement every RunStore method .*; it lacks startCall\(\), isApprovalUsed\(\)\./,
      ),
    ]);
    expect(() => new Agent({ model, runStore: whole })).not.toThrow();
  });

  it("computes the tool definitions once, frozen, from the tools' schemas", () => {
    const { tool } = addNumbersTool();
    const agent = new Agent({ model, tools: [tool] });
    expect(agent.toolDefinitions).toEqual([
      {
        type: "function",
        function: {
          name: "add_numbers",
          description: "Adds two numbers.",
          parameters: tool.parameters,
        },
      },
    ]);
    expect(agent.toolDefinitions[0]?.function.parameters).toBe(tool.parameters);
    expect(Object.isFrozen(agent.toolDefinitions)).toBe(true);
    expect(agent.tools.get("add_numbers")).toBe(tool);
  });

  it("rejects bad run input and options without calling the model", async () => {
    const agent = new Agent({ model });
    await expect(agent.run("  ")).rejects.toThrow("The run input is an empty string");
    await expect(agent.run([{ role: "robot", content: "hi" } as never])).rejects.toThrow(
      "input[0] must be a chat message",
    );
    await expect(agent.run("hi", { maxSteps: -1 })).rejects.toThrow(
      "maxSteps must be a positive integer",
    );
    expect(() => agent.stream("")).toThrow(ConfigurationError);
    expect(model.requests).toHaveLength(0);
  });
});
