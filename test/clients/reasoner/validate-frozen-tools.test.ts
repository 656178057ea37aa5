import { describe, expect, it } from "vitest";
import { findChatRequestProblems } from "../../../src/clients/reasoner/validate-chat-request.js";

const messages = [{ role: "user", content: "hi" }];

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

describe("tool checks on frozen tool lists (remembered per list)", () => {
  it("reports a frozen list's problems on every request, not only the first", () => {
    const tools = deepFreeze([
      { type: "function", function: { name: "bad name", parameters: { type: "object" } } },
    ]);
    const first = findChatRequestProblems({ messages, tools });
    expect(first).toEqual([
      'tools[0].function.name "bad name" does not match ^[a-zA-Z0-9_-]{1,64}$',
    ]);
    expect(findChatRequestProblems({ messages, tools })).toEqual(first);
  });

  it("still checks tool_choice against a remembered list's names", () => {
    const tools = deepFreeze([
      { type: "function", function: { name: "echo", parameters: { type: "object" } } },
    ]);
    expect(findChatRequestProblems({ messages, tools })).toEqual([]);
    const choice = { type: "function", function: { name: "other" } };
    expect(findChatRequestProblems({ messages, tools, tool_choice: choice })).toEqual([
      'tool_choice names tool "other", which is not in tools (available: echo)',
    ]);
  });

  it("re-checks a list that is not frozen, so a change is seen", () => {
    const fn: Record<string, unknown> = { name: "echo", parameters: { type: "object" } };
    const tools = [{ type: "function", function: fn }];
    expect(findChatRequestProblems({ messages, tools })).toEqual([]);
    fn.name = "bad name";
    expect(findChatRequestProblems({ messages, tools })).toHaveLength(1);
  });
});
