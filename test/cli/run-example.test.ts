import { type RunReport, runExample } from "switchyard-agents/cli";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  type ReasonerSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
  startReasonerSimulator,
} from "switchyard-agents/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbackCleanup } from "../../examples/callback-cleanup.js";
import { orderReport } from "../../examples/order-report.js";
import { createTestIo } from "./cli-test-io.js";

const forgedToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJub2JvZHkifQ.c2lnbmF0dXJl";

function parseReport(stdout: string): RunReport {
  const lines = stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as RunReport;
}

describe("runExample against the simulators it starts", () => {
  it("prints one JSON report on stdout and progress on stderr", async () => {
    const test = createTestIo();

    const exitCode = await runExample(callbackCleanup, {
      approve: "approve",
      json: true,
      io: test.io,
    });

    expect(exitCode).toBe(0);
    const report = parseReport(test.stdout());
    expect(report).toMatchObject({ example: "callback-cleanup", status: "completed" });
    expect(report.output).toMatch(/^Deleted 4 callbacks/);
    expect(report.toolCalls.map((call) => [call.name, call.status])).toEqual([
      ["list_callbacks", "succeeded"],
      ["delete_callbacks", "succeeded"],
    ]);
    expect(report.approvals).toEqual([
      expect.objectContaining({ tool: "delete_callbacks", outcome: "approved" }),
    ]);
    expect(report.usage.totalTokens).toBeGreaterThan(0);
    expect(report.services.orders.simulated).toBe(true);
    // No token of any simulator: no JWT, no reasoner key, no docs or messaging token.
    expect(test.stdout()).not.toMatch(/eyJ|sk-sim-|docs_|msg_/);
    expect(test.stderr()).toContain("step 1");
    expect(test.stderr()).toContain("-> delete_callbacks");
    expect(test.stderr()).toMatch(/approved by subscription link \S+ after/);
    expect(test.stderr()).toContain("run completed");
  });

  it("denies without a terminal, reports the refusal, and still exits 0", async () => {
    const test = createTestIo();

    const exitCode = await runExample(callbackCleanup, { json: true, io: test.io });

    expect(exitCode).toBe(0);
    const report = parseReport(test.stdout());
    expect(report.status).toBe("completed");
    expect(report.approvals).toEqual([
      expect.objectContaining({ outcome: "refused", code: "denied" }),
    ]);
    expect(report.toolCalls[1]).toMatchObject({
      status: "refused",
      error: { code: "approval_refused" },
    });
    expect(test.stderr()).toContain(
      "approvals  always denied by the messaging simulator (no terminal to ask at; --approve approve to approve)\n",
    );
    expect(test.stderr()).not.toContain("--approve deny");
    // People see the outcome, not the instructions written for the model.
    expect(test.stdout()).not.toMatch(/Do not|unless the user asks/);
    expect(test.stderr()).not.toMatch(/Do not|unless the user asks/);
  });

  it("names --approve in the header only when it was given", async () => {
    const test = createTestIo();

    expect(await runExample(orderReport, { approve: "deny", io: test.io })).toBe(0);
    expect(test.stderr()).toContain(
      "approvals  always denied by the messaging simulator (--approve deny)\n",
    );
  });

  it("asks the person through the terminal with --approve ask", async () => {
    const test = createTestIo({ terminal: true });
    // The answer goes to stdout only when it is not the terminal the run streams to.
    Object.assign(test.io.stdout, { isTTY: false });
    const answered = new Promise<void>((resolve) => {
      test.io.stderr.on("data", () => {
        if (test.stderr().includes("Your choice")) resolve();
      });
    });

    const running = runExample(callbackCleanup, { approve: "ask", io: test.io });
    await answered;
    test.type("2: the new host is not live yet");
    const exitCode = await running;

    expect(exitCode).toBe(0);
    expect(test.stderr()).toContain("Delete 4 callbacks");
    expect(test.stderr()).toContain("refused (denied)");
    expect(test.stderr()).toContain('their note: "the new host is not live yet"');
    expect(test.stderr()).not.toMatch(/Do not|unless the user asks/);
    expect(test.stdout()).toMatch(/^Nothing was deleted.*the new host is not live yet/s);
  });

  it("prints the answer on stdout without --json", async () => {
    const test = createTestIo();

    const exitCode = await runExample(orderReport, { io: test.io });

    expect(exitCode).toBe(0);
    expect(test.stdout()).toMatch(/^There are 240 orders in total\. By status: /);
  });

  it("ends with exit status 1 and one line when the run is aborted", async () => {
    const test = createTestIo({ terminal: true });
    const controller = new AbortController();
    test.io.stderr.on("data", () => {
      if (test.stderr().includes("Your choice")) controller.abort();
    });

    const exitCode = await runExample(callbackCleanup, {
      approve: "ask",
      io: test.io,
      signal: controller.signal,
    });

    expect(exitCode).toBe(1);
    expect(test.stderr()).toMatch(/run aborted \(.*\): The run was aborted before it completed\./);
  });
});

describe("runExample with services from the environment", () => {
  let messaging: MessagingSimulator;
  let orders: OrdersSimulator;
  let reasoner: ReasonerSimulator;
  beforeAll(async () => {
    [messaging, orders, reasoner] = await Promise.all([
      startMessagingSimulator({ answer: "approve", answerDelayMs: 5 }),
      startOrdersSimulator(),
      startReasonerSimulator({ scenario: "callback-cleanup" }),
    ]);
  });
  afterAll(() => Promise.all([messaging.close(), orders.close(), reasoner.close()]));

  const messagingEnv = () => ({
    SWITCHYARD_MESSAGING_URL: messaging.url,
    SWITCHYARD_MESSAGING_TOKEN: messaging.token!,
    SWITCHYARD_APPROVER_LINK: messaging.approverLinkId,
  });

  it("lets the real approver answer, and refuses --approve approve there", async () => {
    const refused = createTestIo({ env: messagingEnv() });
    expect(await runExample(callbackCleanup, { approve: "approve", io: refused.io })).toBe(2);
    expect(refused.stderr().trim()).toBe(
      "switchyard: --approve approve only applies to the messaging simulator: with SWITCHYARD_MESSAGING_URL set, the person behind SWITCHYARD_APPROVER_LINK answers each request. Leave --approve out (or use --approve ask).",
    );

    messaging.reset();
    const test = createTestIo({ env: messagingEnv() });
    expect(await runExample(callbackCleanup, { json: true, io: test.io })).toBe(0);
    expect(parseReport(test.stdout()).approvals[0]?.outcome).toBe("approved");
    expect(messaging.interactions()).toEqual([expect.objectContaining({ state: "answered" })]);
  });

  it("refuses simulated approvals (approve, browser) with a real orders or docs service", async () => {
    const ordersEnv = {
      SWITCHYARD_ORDERS_URL: orders.url,
      SWITCHYARD_ORDERS_TOKEN: orders.token,
    };
    const before = orders.callbacks().length;
    for (const approve of ["approve", "browser"] as const) {
      const refused = createTestIo({ env: ordersEnv });
      expect(await runExample(callbackCleanup, { approve, io: refused.io })).toBe(2);
      expect(refused.stderr().trim()).toBe(
        `switchyard: --approve ${approve} lets the messaging simulator approve, and SWITCHYARD_ORDERS_URL names a real orders service: real actions need the real messaging service. Set SWITCHYARD_MESSAGING_URL, SWITCHYARD_MESSAGING_TOKEN and SWITCHYARD_APPROVER_LINK so the person behind the link approves, or use --approve ask (at this terminal) or --approve deny.`,
      );
    }
    const docs = createTestIo({
      env: { SWITCHYARD_DOCS_URL: "http://127.0.0.1:9/docs", SWITCHYARD_DOCS_TOKEN: "t" },
    });
    expect(await runExample(callbackCleanup, { approve: "approve", io: docs.io })).toBe(2);
    expect(docs.stderr()).toContain("SWITCHYARD_DOCS_URL names a real docs service");
    expect(orders.callbacks()).toHaveLength(before);

    const denied = createTestIo({ env: ordersEnv });
    expect(await runExample(callbackCleanup, { approve: "deny", io: denied.io })).toBe(0);
  });

  it("checks the approver's subscription link before the run", async () => {
    messaging.reset();
    messaging.expireLink(messaging.approverLinkId);
    const expired = createTestIo({ env: messagingEnv() });
    expect(await runExample(callbackCleanup, { io: expired.io })).toBe(2);
    expect(expired.stderr()).toContain(
      `switchyard: The approver's subscription link ${messaging.approverLinkId} (SWITCHYARD_APPROVER_LINK) is expired, not active: create a new link`,
    );

    messaging.reset();
    const unknown = createTestIo({
      env: { ...messagingEnv(), SWITCHYARD_APPROVER_LINK: "sl_nope" },
    });
    expect(await runExample(callbackCleanup, { io: unknown.io })).toBe(2);
    expect(unknown.stderr()).toMatch(
      /switchyard: The messaging service at \S+ has no subscription link sl_nope \(SWITCHYARD_APPROVER_LINK\)/,
    );
    expect(messaging.messages()).toHaveLength(0);
  });

  it("uses a real order service, and names its token when the service rejects it", async () => {
    const test = createTestIo({
      env: { SWITCHYARD_ORDERS_URL: orders.url, SWITCHYARD_ORDERS_TOKEN: forgedToken },
    });

    expect(await runExample(orderReport, { json: true, io: test.io })).toBe(2);

    expect(test.stdout()).toBe("");
    const lines = test.stderr().trim().split("\n");
    expect(lines.at(-1)).toMatch(
      /^switchyard: The orders service at http:\/\/127\.0\.0\.1:\d+\/acme-sandbox\/api\/v1 rejected SWITCHYARD_ORDERS_TOKEN \(HTTP 401\)/,
    );
    expect(test.stderr()).not.toContain(forgedToken);

    const good = createTestIo({
      env: { SWITCHYARD_ORDERS_URL: orders.url, SWITCHYARD_ORDERS_TOKEN: orders.token },
    });
    expect(await runExample(orderReport, { io: good.io })).toBe(0);
    expect(good.stdout()).toMatch(/^There are 240 orders in total/);
  });

  it("reports a rejected reasoner key as a failed run with exit status 2", async () => {
    const test = createTestIo({
      env: { SWITCHYARD_REASONER_URL: reasoner.url, SWITCHYARD_REASONER_API_KEY: "sk-wrong-key" },
    });

    expect(await runExample(callbackCleanup, { json: true, io: test.io })).toBe(2);

    expect(parseReport(test.stdout())).toMatchObject({ status: "failed", steps: [] });
    expect(test.stderr()).toMatch(
      /run failed \(.*\): The reasoner service at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions rejected SWITCHYARD_REASONER_API_KEY \(HTTP 401\)/,
    );
    expect(test.stderr()).not.toContain("sk-wrong-key");
  });

  it("says which variable is missing when an address comes without its token", async () => {
    const test = createTestIo({
      env: { SWITCHYARD_DOCS_URL: "https://docs.example.com/cli/v1", ...messagingEnv() },
    });
    delete (test.io.env as Record<string, string>).SWITCHYARD_APPROVER_LINK;

    expect(await runExample(callbackCleanup, { io: test.io })).toBe(2);

    expect(test.stderr()).toBe(
      [
        "switchyard: SWITCHYARD_DOCS_URL is set but SWITCHYARD_DOCS_TOKEN is not: set it too, or unset SWITCHYARD_DOCS_URL to use the docs simulator.",
        "switchyard: SWITCHYARD_MESSAGING_URL is set but SWITCHYARD_APPROVER_LINK is not: set it too, or unset SWITCHYARD_MESSAGING_URL to use the messaging simulator.",
        "",
      ].join("\n"),
    );
  });
});
