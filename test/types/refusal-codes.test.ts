import { Agent, type Approver, defineTool } from "switchyard-agents";
import { type RefusalCode, refusalCodes } from "switchyard-agents/agent";
import { ScriptedModel } from "switchyard-agents/testing";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { RefusedRecord } from "../../src/agent/approval-gate.js";

/** A gated tool, and an agent whose approver refuses with `code` (unchecked, as JavaScript would). */
async function refusedWith(code: unknown): Promise<RefusedRecord | undefined> {
  const remove = defineTool({
    name: "remove_thing",
    description: "Removes a thing",
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    execute: async () => "removed",
  });
  const approver = {
    ask: async () => "question-1",
    read: async () => [{ outcome: "refused", code, reason: "not today" }],
  } as unknown as Approver;
  const agent = new Agent({
    model: new ScriptedModel([
      { toolCalls: [{ name: "remove_thing", arguments: { id: "a" } }] },
      { text: "Done." },
    ]),
    tools: [remove],
    approver,
  });
  const result = await agent.run("Remove a.");
  const approval = result.steps[0]?.toolCalls[0]?.approval;
  return approval?.outcome === "refused" ? approval : undefined;
}

describe("refusal codes", () => {
  it("are a union of string literals: a misspelt code is a type error", () => {
    expectTypeOf<RefusedRecord["code"]>().toEqualTypeOf<RefusalCode>();
    expectTypeOf<RefusalCode>().toEqualTypeOf<(typeof refusalCodes)[number]>();
    const known: RefusalCode = "fingerprint_mismatch";
    // @ts-expect-error "fingerprint_mismatched" is not a refusal code
    const misspelt: RefusalCode = "fingerprint_mismatched";
    const approver: Approver = {
      ask: async () => "question-1",
      // @ts-expect-error an approver refuses with one of the codes only
      read: async () => [{ outcome: "refused", code: "nope", reason: "no" }],
    };
    expect([known, misspelt, typeof approver.read]).toEqual([
      "fingerprint_mismatch",
      "fingerprint_mismatched",
      "function",
    ]);
    expect(new Set(refusalCodes).size).toBe(refusalCodes.length);
  });

  it("keep an approver's known code, and read an unknown one as invalid_decision", async () => {
    expect(await refusedWith("expired")).toMatchObject({ code: "expired", reason: "not today" });
    expect(await refusedWith(undefined)).toMatchObject({ code: "denied" });
    expect(await refusedWith("on_vacation")).toMatchObject({
      code: "invalid_decision",
      reason: "not today",
    });
  });
});
