import type { Page } from "playwright-core";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "switchyard-agents/simulators";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { retiredCallbackHost } from "../../src/simulators/orders/seed-callbacks.js";
import { type HeadlessChromium, startHeadlessChromium } from "../helpers/headless-chromium.js";
import { finished, spawnScript } from "./spawn-switchyard.js";

let chromium: HeadlessChromium;
let orders: OrdersSimulator;
let messaging: MessagingSimulator;

const retiredCallbacks = () =>
  orders.callbacks().filter((callback) => callback.url.includes(retiredCallbackHost));

/**
 * Runs the demo until its inbox page holds the question: with `--approve
 * browser` on the run's own simulators, or, with `services`, against the
 * test's order service and messaging simulator, whose inbox the person
 * answers as the person behind SWITCHYARD_APPROVER_LINK.
 */
async function startDemo(
  services?: Record<string, string>,
): Promise<{ inboxUrl: string; done: ReturnType<typeof finished> }> {
  const child = spawnScript(
    "src/cli/main.ts",
    ["run", "callback-cleanup", ...(services ? [] : ["--approve", "browser"])],
    services,
  );
  let stderr = "";
  const asked = new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      const inboxUrl = services ? messaging.inboxUrl : /^ {2}inbox {6}(\S+)/m.exec(stderr)?.[1];
      if (inboxUrl && stderr.includes("approval needed for delete_callbacks")) resolve(inboxUrl);
    });
    child.on("close", () => reject(new Error(`the demo ended before asking:\n${stderr}`)));
  });
  const done = finished(child);
  return { inboxUrl: await asked, done };
}

async function answerOnPage(inboxUrl: string, button: string, note?: string): Promise<Page> {
  const page = await chromium.browser.newPage();
  await page.goto(inboxUrl);
  const question = page.locator("article.interaction.pending");
  await question.waitFor();
  expect(await question.locator(".text").innerText()).toContain("Delete 4 callbacks");
  if (note !== undefined) {
    // A note is written on the question's own page; the inbox has nothing to type into.
    await question.getByRole("link", { name: "Open this question" }).click();
    await question.locator("textarea[name=note]").fill(note);
  }
  await question.getByRole("button", { name: button, exact: true }).click();
  await page.locator("article.interaction .outcome.answered").waitFor();
  return page;
}

describe("approving the demo in a browser (Chromium)", () => {
  beforeAll(async () => {
    chromium = await startHeadlessChromium();
    // For the refusal, the services live in the test, so the test sees that nothing was
    // deleted; nobody but the person on the inbox page answers.
    orders = await startOrdersSimulator();
    messaging = await startMessagingSimulator({ answer: "never" });
  });

  afterAll(async () => {
    await chromium?.close();
    await orders?.close();
    await messaging?.close();
  });

  beforeEach(() => {
    orders.reset();
    messaging.reset();
  });

  it("deletes the retired host's callbacks once Approve is pressed on the inbox page", async () => {
    const { inboxUrl, done } = await startDemo();

    const page = await answerOnPage(inboxUrl, "Approve");

    const run = await done;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("answered in a browser");
    expect(run.stderr).toMatch(/approved (by .+ )?after/);
    expect(run.stdout).toMatch(/^Deleted 4 callbacks that pointed at/);
    expect(await page.locator(".outcome.answered").innerText()).toMatch(
      /^Answered: Approve \[approve\]/,
    );
    await page.close();
  });

  it("deletes nothing when Deny is pressed, and the agent reads the note", async () => {
    const before = orders.callbacks();
    expect(retiredCallbacks()).toHaveLength(4);
    const { inboxUrl, done } = await startDemo({
      SWITCHYARD_ORDERS_URL: orders.url,
      SWITCHYARD_ORDERS_TOKEN: orders.token,
      SWITCHYARD_MESSAGING_URL: messaging.url,
      SWITCHYARD_MESSAGING_TOKEN: messaging.token!,
      SWITCHYARD_APPROVER_LINK: messaging.approverLinkId,
    });

    const page = await answerOnPage(inboxUrl, "Deny", "the new host is not live yet");

    const run = await done;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("refused (denied)");
    expect(run.stdout).toMatch(/^Nothing was deleted.*the new host is not live yet/s);
    expect(orders.callbacks()).toEqual(before);
    expect(orders.requests.filter((request) => request.method === "DELETE")).toEqual([]);
    expect(await page.locator(".outcome.answered").innerText()).toContain(
      "Note: the new host is not live yet",
    );
    await page.close();
  });

  it("never wraps a long URL's host on a narrow page", async () => {
    const host = "paypal-account-verification-secure-login.example-payments-portal.example";
    const response = await fetch(`${messaging.url}/v1/messages`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${messaging.token}`,
        "content-type": "application/json",
        "idempotency-key": "long-url",
      },
      body: JSON.stringify({
        subscription_link_id: messaging.approverLinkId,
        kind: "interaction",
        text: `Delete 1 callback\n- callback to: "https://${host}/acme/orders/webhooks/v2/receive"`,
        options: [{ id: "approve", label: "Approve" }],
      }),
    });
    expect(response.status).toBe(202);
    const page = await chromium.browser.newPage();
    await page.setViewportSize({ width: 360, height: 800 });
    await page.goto(messaging.inboxUrl);
    const text = page.locator("article.interaction .text");
    await text.waitFor();

    // The line boxes the host's characters fall on, measured on the text as laid out.
    const lines = await text.evaluate((element, wanted) => {
      const showText = 4; // NodeFilter.SHOW_TEXT
      const walker = element.ownerDocument.createTreeWalker(element, showText);
      const nodes: Array<{ data: string }> = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
      const whole = nodes.map((node) => node.data).join("");
      let start = whole.indexOf(wanted);
      const end = start + wanted.length;
      const tops = new Set<number>();
      let offset = 0;
      for (const node of nodes) {
        for (let index = 0; index < node.data.length; index += 1, offset += 1) {
          if (offset < start || offset >= end) continue;
          const range = element.ownerDocument.createRange();
          range.setStart(node, index);
          range.setEnd(node, index + 1);
          for (const rect of range.getClientRects()) tops.add(Math.round(rect.top));
        }
      }
      if (start < 0) start = Number.NaN;
      return { found: !Number.isNaN(start), lines: tops.size };
    }, host);
    // The path still wraps: the text is not one long line.
    const height = await text.evaluate((element) => element.getBoundingClientRect().height);

    expect(lines).toEqual({ found: true, lines: 1 });
    expect(height).toBeGreaterThan(40);
    await page.close();
  });
});
