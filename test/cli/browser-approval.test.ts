import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import {
  type OrdersSimulator,
  retiredCallbackHost,
  startOrdersSimulator,
} from "switchyard-agents/simulators";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { finished, spawnScript } from "./spawn-switchyard.js";

/** Debian's Chromium (`apt-get install chromium`); `npm test` installs it first (scripts/install-test-tools.sh). */
const chromiumPath = "/usr/bin/chromium";

let browser: BrowserContext;
let profile: string;
let orders: OrdersSimulator;

const retiredCallbacks = () =>
  orders.callbacks().filter((callback) => callback.url.includes(retiredCallbackHost));

/** Runs the demo with --approve browser until its inbox page holds the question. */
async function startDemo(): Promise<{ inboxUrl: string; done: ReturnType<typeof finished> }> {
  const child = spawnScript(
    "src/cli/main.ts",
    ["run", "callback-cleanup", "--approve", "browser"],
    {
      SWITCHYARD_ORDERS_URL: orders.url,
      SWITCHYARD_ORDERS_TOKEN: orders.token,
    },
  );
  let stderr = "";
  const asked = new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      const inbox = /^ {2}inbox {6}(\S+)/m.exec(stderr);
      if (inbox && stderr.includes("approval needed for delete_callbacks")) resolve(inbox[1]!);
    });
    child.on("close", () => reject(new Error(`the demo ended before asking:\n${stderr}`)));
  });
  const done = finished(child);
  return { inboxUrl: await asked, done };
}

async function answerOnPage(inboxUrl: string, button: string, note?: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(inboxUrl);
  const question = page.locator("article.interaction.pending");
  await question.waitFor();
  expect(await question.locator(".text").innerText()).toContain("Delete 4 callbacks");
  if (note !== undefined) await question.locator("textarea[name=note]").fill(note);
  await question.getByRole("button", { name: button, exact: true }).click();
  await page.locator("article.interaction .outcome.answered").waitFor();
  return page;
}

describe("approving the demo in a browser (Chromium)", () => {
  beforeAll(async () => {
    profile = await mkdtemp(join(tmpdir(), "switchyard-chromium-"));
    // A fresh profile directory for each run (Playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    // The order service lives in the test, so the test sees what the run deleted;
    // the messaging simulator (and its inbox page) is the run's own.
    orders = await startOrdersSimulator();
  });

  afterAll(async () => {
    await browser?.close();
    await orders?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  beforeEach(() => orders.reset());

  it("deletes the retired host's callbacks once Approve is pressed on the inbox page", async () => {
    expect(retiredCallbacks()).toHaveLength(4);
    const { inboxUrl, done } = await startDemo();

    const page = await answerOnPage(inboxUrl, "Approve");

    const run = await done;
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("answered in a browser");
    expect(run.stderr).toMatch(/approved after/);
    expect(run.stdout).toMatch(/^Deleted 4 callbacks that pointed at/);
    expect(retiredCallbacks()).toEqual([]);
    expect(await page.locator(".outcome.answered").innerText()).toMatch(
      /^Answered: Approve \[approve\]/,
    );
    await page.close();
  });

  it("deletes nothing when Deny is pressed, and the agent reads the note", async () => {
    const before = orders.callbacks();
    const { inboxUrl, done } = await startDemo();

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
});
