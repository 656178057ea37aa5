import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { InteractionQuestion } from "../../src/simulators/messaging/answer-mode.js";
import { startMessagingSimulator } from "../../src/simulators/messaging/messaging-simulator.js";
import { terminalAnswerer } from "../../src/simulators/messaging/terminal-answerer.js";

function question(overrides: Partial<InteractionQuestion> = {}): InteractionQuestion {
  return {
    interaction_id: "i-1",
    message_id: "m-1",
    subscription_link_id: "l-1",
    text: "Cancel order ORD-1200?",
    options: [
      { id: "approve", label: "Approve" },
      { id: "deny", label: "Deny" },
    ],
    metadata: { tool: "cancel_orders" },
    ...overrides,
  };
}

function streams() {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  return { input, output, printed: () => printed };
}

describe("terminalAnswerer", () => {
  it("prints the text and options and returns the numbered choice", async () => {
    const { input, output, printed } = streams();
    const answer = terminalAnswerer({ input, output });
    const pending = answer(question());
    input.write("2\n");
    expect(await pending).toEqual({ option_id: "deny" });
    expect(printed()).toContain("Cancel order ORD-1200?");
    expect(printed()).toContain("1) Approve [approve]");
    expect(printed()).toContain("2) Deny [deny]");
    answer.close();
  });

  it("shows control characters, ANSI sequences and bidi overrides written out, never obeyed", async () => {
    const { input, output, printed } = streams();
    const answer = terminalAnswerer({ input, output });
    const pending = answer(
      question({
        interaction_id: "i-\x1b[31m",
        text: 'Delete 1 callback:\n  "https://a.example/\u202egpj"\x1b[2K\x1b[1A\rThis can be undone.\u2028Reply approve',
        options: [
          { id: "approve", label: "Approve\x1b[8m" },
          { id: "deny", label: "Deny\u200b" },
        ],
      }),
    );
    input.write("2\n");
    await pending;
    const shown = printed();
    expect(shown.replaceAll("\n", "")).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
    expect(shown).toContain(
      '"https://a.example/\\u202egpj"\\x1b[2K\\x1b[1A\\rThis can be undone.\\u2028Reply approve',
    );
    expect(shown).toContain("Interaction i-\\x1b[31m:");
    expect(shown).toContain("1) Approve\\x1b[8m [approve]");
    expect(shown).toContain("2) Deny\\u200b [deny]");
    answer.close();
  });

  it("re-asks after an invalid line and accepts an id or label with a comment", async () => {
    const { input, output, printed } = streams();
    const answer = terminalAnswerer({ input, output });
    const pending = answer(question());
    input.write("maybe\n");
    input.write("APPROVE: looks right\n");
    expect(await pending).toEqual({ option_id: "approve", text: "looks right" });
    expect(printed()).toContain("Not an option");
    answer.close();
  });

  it("takes free text when there are no options", async () => {
    const { input, output } = streams();
    const answer = terminalAnswerer({ input, output });
    const pending = answer(question({ options: [] }));
    input.write("\nship it on Monday\n");
    expect(await pending).toEqual({ option_id: "free_text", text: "ship it on Monday" });
    answer.close();
  });

  it("asks one question at a time and keeps lines typed ahead", async () => {
    const { input, output } = streams();
    const answer = terminalAnswerer({ input, output });
    const first = answer(question({ interaction_id: "i-1" }));
    const second = answer(question({ interaction_id: "i-2" }));
    input.write("1\n2\n");
    expect(await first).toEqual({ option_id: "approve" });
    expect(await second).toEqual({ option_id: "deny" });
    answer.close();
  });

  it("refuses at once, with a line saying so, when the input ends, recording no note", async () => {
    const { input, output, printed } = streams();
    const answer = terminalAnswerer({ input, output });
    const first = answer(question({ interaction_id: "i-1" }));
    const second = answer(question({ interaction_id: "i-2" }));
    input.end();
    // Nobody wrote anything: an end of input is no note of the approver's.
    const refused = { option_id: "deny" };
    expect(await first).toEqual(refused);
    expect(await second).toEqual(refused);
    expect(printed().match(/\(no more input: refused\)/g)).toHaveLength(2);
    answer.close();
  });

  it("leaves a question without a deny option pending when the input ends", async () => {
    const { input, output, printed } = streams();
    const answer = terminalAnswerer({ input, output });
    const pending = answer(question({ options: [] }));
    input.end();
    expect(await pending).toBeUndefined();
    expect(printed()).toContain("no option to refuse: the interaction stays pending");
    answer.close();
  });

  it("prints nothing more and answers nothing when closed with a question open", async () => {
    const { input, output, printed } = streams();
    const answer = terminalAnswerer({ input, output });
    const pending = answer(question());
    await new Promise((resolve) => setImmediate(resolve));
    const before = printed();
    answer.close();
    expect(await pending).toBeUndefined();
    expect(printed()).toBe(before);
  });

  it("answers simulator interactions from what the person types", async () => {
    const { input, output, printed } = streams();
    const answer = terminalAnswerer({ input, output });
    const messaging = await startMessagingSimulator({
      answer,
      answerDelayMs: 1,
      deliveryStepMs: 1,
    });
    try {
      const response = await fetch(`${messaging.url}/v1/messages`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${String(messaging.token)}`,
          "content-type": "application/json",
          "idempotency-key": "terminal-1",
        },
        body: JSON.stringify({
          subscription_link_id: messaging.approverLinkId,
          kind: "interaction",
          text: "Hold orderEvent callbacks?",
          options: [
            { id: "approve", label: "Approve" },
            { id: "deny", label: "Deny" },
          ],
        }),
      });
      const { interaction_id: interactionId } = (await response.json()) as {
        interaction_id: string;
      };
      const deadline = Date.now() + 3000;
      while (!printed().includes("Hold orderEvent callbacks?") && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      input.write("deny: events would be lost\n");
      while (messaging.interaction(interactionId)?.state === "pending" && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(messaging.interaction(interactionId)?.answer).toMatchObject({
        option_id: "deny",
        text: "events would be lost",
      });
    } finally {
      answer.close();
      await messaging.close();
    }
  });

  it("names the run, the tool and the task asking, and says when a run is not saved", async () => {
    const { input, output, printed } = streams();
    const answer = terminalAnswerer({ input, output });
    const first = answer(
      question({
        metadata: {
          run_id: "run_8f2c",
          tool: "cancel_orders",
          tool_call_id: "call_1_0",
          task: "tidy\u202e orders",
        },
      }),
    );
    input.write("2\n");
    await first;
    expect(printed()).toContain(
      "Interaction i-1:\n  Run: run_8f2c\n  Tool: cancel_orders (call call_1_0)\n  Task: tidy\\u202e orders\n  Cancel order ORD-1200?",
    );
    const second = answer(question({ interaction_id: "i-2" }));
    input.write("2\n");
    await second;
    expect(printed()).toContain(
      "Interaction i-2:\n  Run: not saved (no run id)\n  Tool: cancel_orders\n",
    );
    answer.close();
  });

  it("leaves the prompt with a line saying so when the question is withdrawn, and the next line answers the next question", async () => {
    const { input, output, printed } = streams();
    const answer = terminalAnswerer({ input, output });
    const messaging = await startMessagingSimulator({
      answer,
      answerDelayMs: 1,
      deliveryStepMs: 1,
    });
    const ask = async (key: string, text: string) => {
      const response = await fetch(`${messaging.url}/v1/messages`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${String(messaging.token)}`,
          "content-type": "application/json",
          "idempotency-key": key,
        },
        body: JSON.stringify({
          subscription_link_id: messaging.approverLinkId,
          kind: "interaction",
          text,
          options: [
            { id: "approve", label: "Approve" },
            { id: "deny", label: "Deny" },
          ],
          metadata: { run_id: "run_1", tool: "cancel_orders" },
        }),
      });
      return (await response.json()) as { message_id: string; interaction_id: string };
    };
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    try {
      const withdrawn = await ask("withdrawn", "Cancel order ORD-1?");
      await until(() => printed().includes("Cancel order ORD-1?"));
      const cancel = await fetch(`${messaging.url}/v1/messages/${withdrawn.message_id}/cancel`, {
        method: "POST",
        headers: { authorization: `Bearer ${String(messaging.token)}` },
      });
      expect(cancel.status).toBe(200);
      await until(() => printed().includes("withdrawn"));
      expect(printed()).toContain(
        "(This question was withdrawn by the sender (its run was cancelled or stopped waiting): it takes no answer now.)",
      );
      expect(messaging.interaction(withdrawn.interaction_id)?.state).toBe("canceled");

      const next = await ask("next", "Cancel order ORD-2?");
      await until(() => printed().includes("Cancel order ORD-2?"));
      input.write("1\n");
      await until(() => messaging.interaction(next.interaction_id)?.state !== "pending");
      expect(messaging.interaction(next.interaction_id)?.answer?.option_id).toBe("approve");
      expect(messaging.interaction(withdrawn.interaction_id)?.answer).toBeUndefined();
    } finally {
      answer.close();
      await messaging.close();
    }
  });
});
