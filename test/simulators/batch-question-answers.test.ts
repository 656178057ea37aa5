import { PassThrough } from "node:stream";
import { type MessagingSimulator, startMessagingSimulator } from "switchyard-agents/simulators";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InteractionQuestion } from "../../src/simulators/messaging/answer-mode.js";
import { terminalAnswerer } from "../../src/simulators/messaging/terminal-answerer.js";
import { formToken, postInboxForm, questionHtml } from "./inbox-form.js";

let messaging: MessagingSimulator;

beforeEach(async () => {
  messaging = await startMessagingSimulator({ answer: "never", deliveryStepMs: 1 });
});
afterEach(() => messaging.close());

const batchOptions = [
  { id: "approve", label: "Approve all" },
  { id: "deny", label: "Deny all" },
  { id: "approve_some", label: "Approve only the numbers I write" },
];
const items = [
  { number: 1, tool: "delete_callback", tool_call_id: "c1", fingerprint: "sha256:a" },
  { number: 2, tool: "delete_callback", tool_call_id: "c2", fingerprint: "sha256:b" },
  { number: 3, tool: "cancel_<b>orders</b>", tool_call_id: "c3", fingerprint: "sha256:c" },
];

async function askBatch(key: string): Promise<string> {
  const response = await fetch(`${messaging.url}/v1/messages`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${messaging.token}`,
      "content-type": "application/json",
      "idempotency-key": key,
    },
    body: JSON.stringify({
      subscription_link_id: messaging.approverLinkId,
      kind: "interaction",
      text: "Approval needed for 3 actions.\n\n[1] Delete callback a.\n\n[2] Delete callback b.\n\n[3] Cancel order c.",
      options: batchOptions,
      metadata: { items },
    }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { interaction_id: string }).interaction_id;
}

function post(interactionId: string, fields: Array<[string, string]>) {
  return postInboxForm(messaging, interactionId, fields);
}

describe("a question about several actions on the inbox page", () => {
  it("offers a checkbox per action, none checked, and answers with the numbers checked", async () => {
    const id = await askBatch("batch");
    const html = await questionHtml(messaging, id);

    expect(html.match(/type="checkbox" name="item"/g)).toHaveLength(3);
    expect(html).not.toContain("checked");
    // The tool name is the sender's: escaped, never markup.
    expect(html).toContain("cancel_&lt;b&gt;orders&lt;/b&gt;");
    expect(html).not.toContain("<b>orders");

    const answered = await post(id, [
      ["token", formToken(html)],
      ["option_id", "approve_some"],
      ["item", "3"],
      ["item", "1"],
      ["note", "not the second yet"],
    ]);
    expect(answered.status).toBe(303);
    expect(messaging.interaction(id)).toMatchObject({
      state: "answered",
      answer: { option_id: "approve_some", text: "1,3: not the second yet" },
    });
  });

  it.each([
    ["nothing checked", [] as string[]],
    ["a number the question does not show", ["4"]],
  ])("sends the person back when %s, answering nothing", async (_case, checked) => {
    const id = await askBatch("batch-bad");
    const html = await (await fetch(messaging.inboxUrl)).text();
    const answered = await post(id, [
      ["token", formToken(html)],
      ["option_id", "approve_some"],
      ...checked.map((number): [string, string] => ["item", number]),
    ]);
    expect(answered.status).toBe(400);
    const page = await answered.text();
    expect(page).toContain("Nothing was answered: ");
    expect(page).toContain("<!doctype html>");
    expect(messaging.interaction(id)?.state).toBe("pending");
  });

  it("answers at once, with what is wrong, a choice that once froze the process", async () => {
    const id = await askBatch("batch-slow");
    const html = await (await fetch(messaging.inboxUrl)).text();
    const answered = await post(id, [
      ["token", formToken(html)],
      ["option_id", "approve_some"],
      ["item", `1${"   1".repeat(17)}!`],
    ]);
    expect(answered.status).toBe(400);
    expect(await answered.text()).toContain("&quot;!&quot; at character 70 after the number 1");
    expect(messaging.interaction(id)?.state).toBe("pending");
  });
});

describe("a question about several actions at the terminal", () => {
  function answerTyping(lines: string[]) {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    const answer = terminalAnswerer({ input, output });
    const question: InteractionQuestion = {
      interaction_id: "i-1",
      message_id: "m-1",
      subscription_link_id: "l-1",
      text: "Approval needed for 3 actions.",
      options: batchOptions,
      metadata: { items },
    };
    const pending = Promise.resolve(answer(question));
    input.write(lines.map((line) => `${line}\n`).join(""));
    return {
      choice: pending.finally(() => answer.close()),
      printed: () => printed,
    };
  }

  it("reads 1,3 as approving actions 1 and 3, asking again for numbers it does not show", async () => {
    const { choice, printed } = answerTyping(["2,7", "1, 3: the rest later"]);
    expect(await choice).toEqual({ option_id: "approve_some", text: "1,3: the rest later" });
    expect(printed()).toContain(
      "Actions: 1 (delete_callback), 2 (delete_callback), 3 (cancel_<b>orders</b>)",
    );
    expect(printed()).toContain("the numbers of the actions to approve (e.g. 1,3)");
    expect(printed()).toContain(
      "Not read: the question has no action numbered 7 (it asks about 1, 2, 3).",
    );
  });

  it("says why an answer that once froze the process is not read, and asks again", async () => {
    const { choice, printed } = answerTyping([`1${"   1".repeat(17)}!`, "none"]);
    expect(await choice).toEqual({ option_id: "deny" });
    expect(printed()).toContain('"!" at character 70 after the number 1');
  });

  it("refuses an answer longer than the limit, saying the limit", async () => {
    const { choice, printed } = answerTyping([`1: ${"a".repeat(3000)}`, "none"]);
    expect(await choice).toEqual({ option_id: "deny" });
    expect(printed()).toContain("more than the 2500 an answer choosing actions may have");
  });

  it.each([
    ["all", { option_id: "approve" }],
    ["none: not today", { option_id: "deny", text: "not today" }],
    ["2", { option_id: "approve_some", text: "2" }],
  ])("reads %j", async (typed, expected) => {
    const { choice } = answerTyping([typed]);
    expect(await choice).toEqual(expected);
  });
});
