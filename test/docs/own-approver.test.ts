import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, defineTool } from "switchyard-agents";
import { ScriptedModel } from "switchyard-agents/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AnswerBook, bookApprover } from "./book-approver.js";

const root = new URL("../../", import.meta.url);

describe("the README's own approver", () => {
  it("is shown in README.md as it is here, in under 30 lines", async () => {
    const readme = await readFile(new URL("README.md", root), "utf8");
    const code = await readFile(new URL("book-approver.ts", import.meta.url), "utf8");
    expect(readme).toContain(`\`\`\`ts\n${code}\`\`\``);
    expect(code.trimEnd().split("\n").length).toBeLessThan(30);
  });

  it("gates a real agent's calls: the approved one runs, the denied one does not, each asked under its own approval id", async () => {
    const ran: string[] = [];
    const cancelOrder = defineTool({
      name: "cancel_order",
      description: "Cancels an order.",
      parameters: z.object({ id: z.string() }),
      needsApproval: true,
      describeAction: ({ id }) => ({ summary: `Cancel order ${id}.` }),
      execute: ({ id }) => {
        ran.push(id);
        return `cancelled ${id}`;
      },
    });
    const book: AnswerBook = new Map();
    // The person: approves order 1042, denies anything else, as the questions come in.
    const answering = (async () => {
      while (book.size < 2 || [...book.values()].some((entry) => entry.answer === undefined)) {
        for (const entry of book.values()) {
          entry.answer ??= entry.question === "Cancel order 1042." ? "approve" : "deny";
        }
        await sleep(5);
      }
    })();
    const result = await new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "cancel_order", arguments: { id: "1042" } }] },
        { toolCalls: [{ name: "cancel_order", arguments: { id: "1043" } }] },
        { text: "done" },
      ]),
      tools: [cancelOrder],
      approver: bookApprover(book),
    }).run("cancel the late orders", { runId: "run_book_1" });
    await answering;
    expect(ran).toEqual(["1042"]);
    expect(result.steps.map((step) => step.toolCalls[0]?.status)).toEqual([
      "succeeded",
      "refused",
      undefined,
    ]);
    const ids = [...book.keys()];
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(/^run_book_1\.[A-Za-z0-9_-]{22}$/);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({ approvalId: ids[0] });
  });

  it("refuses the call when the run is aborted while it waits for the person", async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const tool = defineTool({
      name: "cancel_order",
      description: "Cancels an order.",
      parameters: z.object({ id: z.string() }),
      needsApproval: true,
      execute: ({ id }) => void ran.push(id),
    });
    const book: AnswerBook = new Map();
    const running = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "cancel_order", arguments: { id: "1042" } }] },
        { text: "done" },
      ]),
      tools: [tool],
      approver: bookApprover(book),
    }).run("cancel", { signal: controller.signal });
    while (book.size === 0) await sleep(5);
    controller.abort();
    const result = await running;
    expect(result.status).toBe("aborted");
    expect(ran).toEqual([]);
  });
});
