import {
  Agent,
  defineTool,
  hasToolCall,
  OrderClient,
  orderTools,
  stepCountIs,
} from "switchyard-agents";
import type { StopCondition, StopWhen } from "switchyard-agents/agent";
import { ScriptedModel } from "switchyard-agents/testing";
import type { AnyTool } from "switchyard-agents/tools";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";

// `npm run typecheck` checks this file: each `@ts-expect-error` fails the
// type check when the line below it is NOT an error, so a name check that
// stops working fails CI.

const fileReport = defineTool({
  name: "file_report",
  description: "Files the report",
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => `filed ${text.length} characters`,
});
const listThings = defineTool({
  name: "list_things",
  description: "Lists things",
  parameters: { type: "object", properties: {} },
  readOnly: true,
  execute: async () => ["a", "b"],
});

/** A model that lists, files the report, then would talk on. */
function scriptedModel(): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ name: "list_things" }] },
    { toolCalls: [{ name: "file_report", arguments: { text: "all good" } }] },
    { text: "I filed the report." },
  ]);
}

describe("stop conditions typed by the agent's tool names", () => {
  it("hasToolCall carries the names it watches, in its type and on the condition", () => {
    const condition = hasToolCall("file_report", "list_things");
    expectTypeOf(condition).toEqualTypeOf<StopCondition<"file_report" | "list_things">>();
    expect(condition.toolNames).toEqual(["file_report", "list_things"]);
    expectTypeOf(fileReport.name).toEqualTypeOf<"file_report">();
  });

  it("an agent accepts conditions naming its tools, and stops on them", async () => {
    const agent = new Agent({
      model: scriptedModel(),
      tools: [fileReport, listThings],
      stopWhen: [hasToolCall("file_report"), stepCountIs(5), ({ steps }) => steps.length > 9],
    });
    expectTypeOf(agent).toEqualTypeOf<Agent<undefined, "file_report" | "list_things">>();
    const result = await agent.run("Report.");
    expect(result.status).toBe("completed");
    expect(result.steps.map((step) => step.toolCalls.map((call) => call.toolName))).toEqual([
      ["list_things"],
      ["file_report"],
    ]);
  });

  it("a name that is not one of the agent's tools is a type error", () => {
    const model = scriptedModel();
    const misspelt = () =>
      new Agent({
        model,
        tools: [fileReport, listThings],
        // @ts-expect-error "file_reprot" is not a tool of this agent
        stopWhen: hasToolCall("file_reprot"),
      });
    const inArray = () =>
      new Agent({
        model,
        tools: [fileReport, listThings],
        // @ts-expect-error "send_email" is not a tool of this agent
        stopWhen: [stepCountIs(3), hasToolCall("file_report", "send_email")],
      });
    const agent = new Agent({ model, tools: [fileReport, listThings] });
    // @ts-expect-error a run's own stopWhen is checked too
    const inRun = () => agent.run("Report.", { stopWhen: hasToolCall("list_thing") });
    // @ts-expect-error and a resume's
    const inResume = () => agent.resume("run_1", { stopWhen: [hasToolCall("filed")] });
    const held: StopWhen<"file_report" | "list_things"> = hasToolCall("list_things");
    // @ts-expect-error StopWhen names the tools it may name
    const wrong: StopWhen<"file_report"> = hasToolCall("list_things");
    expect([misspelt, inArray, inRun, inResume].every((call) => typeof call === "function")).toBe(
      true,
    );
    expect([held.length, wrong.length]).toEqual([1, 1]);
  });

  it("a tool set's tools are named too: orderTools gives its tool names", () => {
    const orders = new OrderClient({ host: "127.0.0.1:1", accountSlug: "acme" });
    const tools = [...orderTools(orders), fileReport];
    const make = () =>
      new Agent({ model: scriptedModel(), tools, stopWhen: hasToolCall("cancel_orders") });
    const misspelt = () =>
      new Agent({
        model: scriptedModel(),
        tools,
        // @ts-expect-error orderTools has cancel_orders, not cancel_order
        stopWhen: hasToolCall("cancel_order"),
      });
    expect(make().tools.has("cancel_orders")).toBe(true);
    expect(typeof misspelt).toBe("function");
  });

  it("conditions naming no tool, or tools typed only as string, fit any agent", () => {
    const mine: StopCondition = ({ steps }) => steps.length > 2;
    const untyped: AnyTool[] = [fileReport];
    const agent = new Agent({
      model: scriptedModel(),
      tools: untyped,
      stopWhen: [mine, stepCountIs(2), hasToolCall("anything_goes")],
    });
    expectTypeOf(agent).toEqualTypeOf<Agent<undefined, string>>();
    expect(agent.tools.size).toBe(1);
  });
});
