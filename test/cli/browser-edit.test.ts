import { type Simulators, startSimulators } from "switchyard-agents/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retiredCallbackHost } from "../../src/simulators/orders/seed-callbacks.js";
import { type HeadlessChromium, startHeadlessChromium } from "../helpers/headless-chromium.js";
import { simulatorVariables } from "./simulator-variables.js";
import { finished, spawnScript } from "./spawn-switchyard.js";

let chromium: HeadlessChromium;
let simulators: Simulators;

const retiredIds = () =>
  simulators.orders
    .callbacks()
    .filter((callback) => callback.url.includes(retiredCallbackHost))
    .map((callback) => callback.id);

describe("changing an action on the inbox page, then approving it (Chromium)", () => {
  beforeAll(async () => {
    chromium = await startHeadlessChromium();
    // The services live in the test, so it sees what ran and what the model was told;
    // nobody but the person on the inbox page answers.
    simulators = await startSimulators({
      reasoner: { scenario: "callback-cleanup" },
      messaging: { answer: "never" },
    });
  });

  afterAll(async () => {
    await chromium?.close();
    await simulators?.close();
  });

  it("runs only the edited deletion, and the model's tool message says the person changed it", async () => {
    const { reasoner, orders, messaging } = simulators;
    const asked = retiredIds();
    expect(asked).toHaveLength(4);
    const child = spawnScript("src/cli/main.ts", ["run", "callback-cleanup", "--allow-edits"], {
      ...simulatorVariables(simulators),
    });
    const done = finished(child);

    const page = await chromium.browser.newPage();
    const question = page.locator("article.interaction.pending");
    // The inbox reloads itself every few seconds; the edit is written on the question's own page.
    await page.goto(messaging.inboxUrl);
    await page.getByRole("link", { name: "Open this question" }).click({ timeout: 30_000 });
    await question.waitFor();
    expect(await question.locator(".text").innerText()).toContain("Delete 4 callbacks");
    const box = question.locator("textarea[name=arguments]");
    expect(JSON.parse(await box.inputValue())).toEqual({ callback_ids: asked });

    const kept = asked.slice(0, 3);
    const deleted = asked.slice(3);
    await box.fill(JSON.stringify({ callback_ids: deleted }, null, 2));
    await question.getByRole("button", { name: "Approve with changes", exact: true }).click();
    await page.locator("article.interaction .outcome.answered").waitFor();
    expect(await page.locator(".outcome.answered").innerText()).toMatch(
      /^Answered: Approve with changes \[edit\]/,
    );

    const run = await done;
    expect(run.code).toBe(0);
    const deletions = orders.requests.filter(
      (request) => request.method === "DELETE" && request.path === "/callbacks",
    );
    expect(deletions.map((request) => request.body)).toEqual([deleted]);
    expect(retiredIds()).toEqual(kept);

    // What the model read about its call: the person's change, and what ran.
    const messages = (
      reasoner.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }
    ).messages;
    const told = messages
      .filter((message) => message.role === "tool")
      .map((message) => JSON.parse(message.content) as Record<string, unknown>)
      .find((content) => content.edited_by_person === true);
    expect(told).toMatchObject({
      asked_arguments: { callback_ids: asked },
      ran_arguments: { callback_ids: deleted },
    });
    expect(told?.message).toContain("The person changed your call to delete_callbacks");
    expect(run.stdout).toMatch(
      /^The person changed the deletion before approving it\. Deleted 1 callback/,
    );
    await page.close();
  });
});
