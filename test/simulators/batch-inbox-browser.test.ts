import {
  Agent,
  MessagingApprover,
  MessagingClient,
  OrderClient,
  orderTools,
} from "switchyard-agents";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "switchyard-agents/simulators";
import { ScriptedModel } from "switchyard-agents/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HeadlessChromium, startHeadlessChromium } from "../helpers/headless-chromium.js";

let chromium: HeadlessChromium;
let orders: OrdersSimulator;
let messaging: MessagingSimulator;

beforeAll(async () => {
  chromium = await startHeadlessChromium();
  orders = await startOrdersSimulator();
  // Nobody answers but the person on the inbox page.
  messaging = await startMessagingSimulator({ answer: "never" });
});

afterAll(async () => {
  await chromium?.close();
  await orders?.close();
  await messaging?.close();
});

describe("a batch question answered on the inbox page (Chromium)", () => {
  it("runs only the actions whose boxes the person checked", async () => {
    const before = orders.callbacks();
    const ids = before.slice(0, 3).map((callback) => callback.id);
    // The model asks for three deletions in one answer: one question, three numbered actions.
    const model = new ScriptedModel([
      {
        toolCalls: ids.map((id) => ({
          name: "delete_callbacks",
          arguments: { callback_ids: [id] },
        })),
      },
      { text: "Deleted what you approved." },
    ]);
    const agent = new Agent({
      model,
      tools: orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })),
      approver: new MessagingApprover({
        client: new MessagingClient({ baseUrl: messaging.url, token: messaging.token }),
        subscriptionLinkId: messaging.approverLinkId,
        pollIntervalMs: 20,
        maxPollIntervalMs: 50,
      }),
    });
    const running = agent.run("delete these three callbacks");

    const page = await chromium.browser.newPage();
    await page.goto(messaging.inboxUrl);
    // The inbox reloads itself every few seconds; the question's own page holds its checkboxes.
    await page.getByRole("link", { name: "Open this question" }).click({ timeout: 30_000 });
    const question = page.locator("article.interaction.pending");
    await question.waitFor();
    const text = await question.locator(".text").innerText();
    for (const number of [1, 2, 3]) expect(text).toContain(`[${number}] Delete 1 callback`);
    expect(await question.locator("input[type=checkbox][name=item]").count()).toBe(3);

    await question.locator("input[type=checkbox][name=item][value='1']").check();
    await question.locator("input[type=checkbox][name=item][value='3']").check();
    await question.locator("details.items textarea[name=note]").fill("keep the second");
    await question.getByRole("button", { name: "Approve only the numbers I write" }).click();
    await page.locator("article.interaction .outcome.answered").waitFor();
    expect(await page.locator(".outcome.answered").innerText()).toContain(
      "Note: 1,3: keep the second",
    );

    const result = await running;
    expect(result.steps[0]?.toolCalls.map((call) => call.status)).toEqual([
      "succeeded",
      "refused",
      "succeeded",
    ]);
    const left = orders.callbacks().map((callback) => callback.id);
    expect(left).not.toContain(ids[0]);
    expect(left).toContain(ids[1]);
    expect(left).not.toContain(ids[2]);
    expect(left).toHaveLength(before.length - 2);
    const deletions = orders.requests.filter(
      (request) => request.method === "DELETE" && request.path.endsWith("/callbacks"),
    );
    expect(deletions.map((request) => request.body)).toEqual(
      expect.arrayContaining([[ids[0]], [ids[2]]]),
    );
    expect(deletions).toHaveLength(2);
    await page.close();
  });
});
