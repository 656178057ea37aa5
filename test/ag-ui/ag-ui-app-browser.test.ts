import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgUiApp, startAgUiApp } from "../../examples/ag-ui-app.js";
import { retiredCallbackHost } from "../../src/simulators/orders/seed-callbacks.js";
import { type HeadlessChromium, startHeadlessChromium } from "../helpers/headless-chromium.js";

let chromium: HeadlessChromium;
let app: AgUiApp;
let stateDirectory: string;

beforeAll(async () => {
  stateDirectory = await mkdtemp(join(tmpdir(), "switchyard-ag-ui-app-"));
  app = await startAgUiApp({ stateDirectory });
  chromium = await startHeadlessChromium();
});

afterAll(async () => {
  await chromium?.close();
  await app?.close();
  await rm(stateDirectory, { recursive: true, force: true });
});

describe("the ag-ui-app example in Chromium", () => {
  it("shows the approval question as text, runs the deletion once the person clicks Approve, and goes on with the conversation", async () => {
    const retired = () =>
      app.orders.callbacks().filter((callback) => callback.url.includes(retiredCallbackHost));
    // A callback whose URL carries markup: the page must show it, not run it.
    const marked = app.orders.state.callbacks.find((callback) =>
      callback.url.includes(retiredCallbackHost),
    )!;
    const markup = `<img src=x onerror="document.title='pwned'">`;
    marked.url = `${marked.url}/${markup}`;
    const before = retired().length;
    expect(before).toBeGreaterThan(1);

    const page = await chromium.browser.newPage();
    await page.goto(app.url);
    await page.getByRole("button", { name: "Send" }).click();
    const question = page.locator("article.interrupt");
    await question.waitFor();
    // While the question is open, the thread takes no new message.
    expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    expect(await question.innerText()).toMatch(/Answer before /);

    const text = await question.locator("pre.question").innerText();
    expect(text).toContain("delete_callbacks");
    expect(text).toContain(markup.replaceAll('"', '\\"'));
    expect(await question.locator("img").count()).toBe(0);
    expect(await page.title()).not.toBe("pwned");
    expect(retired()).toHaveLength(before);

    await question.getByRole("button", { name: "Approve" }).click();
    await page.locator("#status", { hasText: "Finished." }).waitFor();
    expect(retired()).toEqual([]);
    const replies = page.locator("#chat li.assistant");
    expect(await replies.last().innerText()).not.toBe("");

    // A second and a third turn on the same thread: the server kept the conversation.
    const say = async (text: string) => {
      const count = await replies.count();
      await page.locator("#message").fill(text);
      await page.getByRole("button", { name: "Send" }).click();
      await replies.nth(count).waitFor();
      await page.locator("#status", { hasText: "Finished." }).waitFor();
      return replies.nth(count).innerText();
    };
    expect(await say("Thanks!")).toBe("You are welcome.");
    expect(await say("What did I ask you before?")).toContain(retiredCallbackHost);
    await page.close();
  });
});
