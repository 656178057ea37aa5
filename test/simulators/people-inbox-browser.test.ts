import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../src/simulators/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { orderTools } from "../../src/tools/orders/order-tools.js";
import {
  type PeopleOnMessaging,
  peopleOnMessaging,
  questionsOut,
} from "../approvers/messaging/people-on-messaging.js";
import { type HeadlessChromium, startHeadlessChromium } from "../helpers/headless-chromium.js";

let chromium: HeadlessChromium;
let orders: OrdersSimulator;
let messaging: MessagingSimulator;
let people: PeopleOnMessaging;

beforeAll(async () => {
  chromium = await startHeadlessChromium();
  orders = await startOrdersSimulator();
  // Nobody answers but the people on their inbox pages.
  messaging = await startMessagingSimulator({ answer: "never" });
  people = await peopleOnMessaging(messaging);
});

afterAll(async () => {
  await chromium?.close();
  await orders?.close();
  await messaging?.close();
});

const deletions = () =>
  orders.requests.filter(
    (request) => request.method === "DELETE" && request.path.endsWith("/callbacks"),
  );

/** A person presses `button` on the pending question of their own inbox page. */
async function answerOnOwnPage(id: string, button: "Approve" | "Deny") {
  const page = await chromium.browser.newPage();
  await page.goto(messaging.inboxUrlOf(people.links[id]![0]!));
  const question = page.locator("article.interaction.pending");
  await question.waitFor({ timeout: 30_000 });
  const text = await question.locator(".text").innerText();
  await question.getByRole("button", { name: button, exact: true }).click();
  await page.locator("article.interaction .outcome.answered").waitFor();
  await page.close();
  return text;
}

describe("people of a directory answering on their own inbox pages (Chromium)", () => {
  it("two on-call people approve on their pages and it runs once; the viewer's page cannot make it run", async () => {
    const id = orders.callbacks()[0]!.id;
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { callback_ids: [id] } }] },
        { text: "Deleted." },
      ]),
      tools: orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })),
      approver: people.approver({ timeoutMs: 60_000, pollIntervalMs: 20, maxPollIntervalMs: 50 }),
      approverDirectory: people.directory,
      approvalPolicy: {
        rules: [
          {
            name: "on-call deletions",
            tool: "delete_callbacks",
            decision: "ask",
            roles: ["oncall"],
            required: 2,
          },
        ],
      },
    });
    const running = agent.run("delete one callback", { startedBy: "erin" });
    const questions = await questionsOut(messaging, 3);
    const aliceQuestion = questions.find((question) => people.whoseIs(question) === "alice")!;

    // Erin (a viewer) was not asked: her page holds no question, and Alice's question is not in her inbox.
    const erin = await chromium.browser.newPage();
    await erin.goto(messaging.inboxUrlOf(people.links.erin![0]!));
    expect(await erin.locator("article.interaction").count()).toBe(0);
    expect(await erin.locator("body").innerText()).toContain("No questions yet");
    const elsewhere = await erin.goto(
      `${messaging.inboxUrlOf(people.links.erin![0]!)}/interactions/${aliceQuestion.interaction_id}`,
    );
    expect(elsewhere?.status()).toBe(404);
    expect(await erin.locator("body").innerText()).toContain("is not in this inbox");
    await erin.close();

    const shown = await answerOnOwnPage("alice", "Approve");
    // Each page shows who is asked and how many must approve.
    expect(shown).toContain(
      'Asked: "Alice Ng", "Bob Roy" and "Carol Diaz"; 2 of them must approve, and a denial from any one of them stops it.',
    );
    expect(deletions()).toEqual([]);
    await answerOnOwnPage("bob", "Approve");
    const result = await running;

    expect(result.steps[0]?.toolCalls[0]?.status).toBe("succeeded");
    expect(deletions()).toHaveLength(1);
    const carolQuestion = questions.find((question) => people.whoseIs(question) === "carol")!;
    expect(messaging.interaction(carolQuestion.interaction_id)?.state).toBe("canceled");
    const carol = await chromium.browser.newPage();
    await carol.goto(messaging.inboxUrlOf(people.links.carol![0]!));
    expect(await carol.locator("article.interaction.pending").count()).toBe(0);
    expect(await carol.locator("article.interaction.canceled").count()).toBe(1);
    await carol.close();
  });
});
