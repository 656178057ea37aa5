import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunReport } from "switchyard-agents/cli";
import { type Simulators, startSimulators } from "switchyard-agents/simulators";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.js";
import { retiredCallbackHost } from "../../src/simulators/orders/seed-callbacks.js";
import { createTestIo } from "./cli-test-io.js";
import { type SimulatedService, simulatorVariables } from "./simulator-variables.js";

let simulators: Simulators;
const directories: string[] = [];

beforeAll(async () => {
  simulators = await startSimulators({
    reasoner: { scenario: "callback-cleanup" },
    // Nobody answers but the test, as the person would.
    messaging: { answer: "never", deliveryStepMs: 1 },
  });
});

afterAll(async () => {
  await simulators.close();
  await Promise.all(
    directories.map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

beforeEach(() => {
  simulators.orders.reset();
  simulators.messaging.reset();
  simulators.reasoner.requests.length = 0;
});

/** The services of the test, a fresh state directory, and `services` narrowed when given. */
async function environment(services?: readonly SimulatedService[]) {
  const directory = await mkdtemp(join(tmpdir(), "switchyard-edits-cli-"));
  directories.push(directory);
  return { SWITCHYARD_STATE_DIR: directory, ...simulatorVariables(simulators, services) };
}

async function switchyard(argv: string[], env: Record<string, string>) {
  const test = createTestIo({ env });
  const code = await runCli(argv, test.io);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

const deletionsReceived = () =>
  simulators.orders.requests.filter(
    (request) => request.method === "DELETE" && request.path === "/callbacks",
  );
const retiredIds = () =>
  simulators.orders
    .callbacks()
    .filter((callback) => callback.url.includes(retiredCallbackHost))
    .map((callback) => callback.id);

/** `run --no-wait`: the run's id and the interaction its question went out on. */
async function suspendedRun(env: Record<string, string>, flags: string[] = []) {
  const started = await switchyard(
    ["run", "callback-cleanup", "--no-wait", "--json", ...flags],
    env,
  );
  expect(started.code).toBe(0);
  const report = JSON.parse(started.stdout) as RunReport;
  expect(report.status).toBe("suspended");
  return { runId: report.runId!, interactionId: report.approvals[0]!.interactionId! };
}

/** The tool messages the model was sent about delete_callbacks, parsed. */
function toolMessagesAboutDeletion(): Array<Record<string, unknown>> {
  const last = simulators.reasoner.requests.at(-1)?.body as {
    messages: Array<{ role: string; content: string; tool_call_id?: string }>;
  };
  const deleteCalls = new Set(
    last.messages.flatMap((message) =>
      (
        (message as { tool_calls?: Array<{ id: string; function: { name: string } }> })
          .tool_calls ?? []
      )
        .filter((call) => call.function.name === "delete_callbacks")
        .map((call) => call.id),
    ),
  );
  return last.messages
    .filter((message) => message.role === "tool" && deleteCalls.has(message.tool_call_id ?? ""))
    .map((message) => JSON.parse(message.content) as Record<string, unknown>);
}

describe("switchyard run --allow-edits at the terminal", () => {
  it("runs only the action as the person changed it, and the model is told so", async () => {
    const [keep1, keep2, ...deleted] = retiredIds();
    expect(deleted).toHaveLength(2);
    // The command's own messaging simulator asks here; the orders and the model are the test's.
    const test = createTestIo({ env: await environment(["reasoner", "orders"]), terminal: true });
    Object.assign(test.io.stdout, { isTTY: false });
    const asked = new Promise<void>((resolve) => {
      test.io.stderr.on("data", () => {
        if (test.stderr().includes("Your choice")) resolve();
      });
    });

    const running = runCli(
      ["run", "callback-cleanup", "--approve", "ask", "--allow-edits"],
      test.io,
    );
    await asked;
    const choice = /(\d+)\) Approve with changes \[edit\]/.exec(test.stderr())?.[1];
    expect(choice).toBeDefined();
    const shown = /Its arguments now: (.+)$/m.exec(test.stderr())?.[1];
    expect(JSON.parse(shown!)).toEqual({ callback_ids: [keep1, keep2, ...deleted] });
    test.type(choice!);
    test.type(JSON.stringify({ callback_ids: deleted }));
    const code = await running;

    expect(code).toBe(0);
    expect(deletionsReceived().map((request) => request.body)).toEqual([deleted]);
    expect(retiredIds()).toEqual([keep1, keep2]);
    const [told] = toolMessagesAboutDeletion();
    expect(told).toMatchObject({
      edited_by_person: true,
      asked_arguments: { callback_ids: [keep1, keep2, ...deleted] },
      ran_arguments: { callback_ids: deleted },
    });
    expect(told?.message).toContain("The person changed your call to delete_callbacks");
    expect(test.stdout()).toMatch(
      /^The person changed the deletion before approving it\. Deleted 2 callbacks/,
    );
    // The progress says what runs is the person's change, not the call shown before it.
    expect(test.stderr()).toMatch(/approved with changes by subscription link \S+ after/);
    expect(test.stderr()).toContain(
      `what runs instead: ${JSON.stringify({ callback_ids: deleted })}`,
    );
    expect(test.stderr()).toContain(
      "<- delete_callbacks: ok, as the person changed it: deleted: 2, failed: 0",
    );
  });
});

describe("failures other agent libraries shipped, on the command line", () => {
  it("a late answer to an older question never approves the call asked about now", async () => {
    const env = await environment();
    // The same deletion asked twice: an older run's question, then this run's.
    const older = await suspendedRun(env);
    const current = await suspendedRun(env);
    expect(current.interactionId).not.toBe(older.interactionId);
    simulators.messaging.answerInteraction(older.interactionId, "approve");

    const resumed = await switchyard(["resume", current.runId, "--json"], env);
    expect(resumed.code).toBe(3);
    expect((JSON.parse(resumed.stdout) as RunReport).status).toBe("suspended");
    expect(deletionsReceived()).toHaveLength(0);

    simulators.messaging.answerInteraction(current.interactionId, "deny");
    const denied = await switchyard(["resume", current.runId, "--json"], env);
    expect(denied.code).toBe(0);
    expect((JSON.parse(denied.stdout) as RunReport).approvals).toEqual([
      expect.objectContaining({ outcome: "refused", code: "denied" }),
    ]);
    expect(deletionsReceived()).toHaveLength(0);
  });

  it("an edited call that the tool's schema rejects never runs, and says why", async () => {
    const env = await environment();
    const { runId, interactionId } = await suspendedRun(env, ["--allow-edits"]);
    expect(
      simulators.messaging.interaction(interactionId)?.options.map((option) => option.id),
    ).toEqual(["approve", "deny", "edit", "approve_standing"]);
    simulators.messaging.answerInteraction(interactionId, "edit", '{"callback_ids":[]}');

    const resumed = await switchyard(["resume", runId, "--json", "--allow-edits"], env);
    expect(resumed.code).toBe(0);
    const report = JSON.parse(resumed.stdout) as RunReport;
    expect(report.approvals).toEqual([
      expect.objectContaining({
        outcome: "refused",
        code: "invalid_edit",
        reason: expect.stringContaining("does not fit delete_callbacks's parameters"),
      }),
    ]);
    expect(deletionsReceived()).toHaveLength(0);
    expect(retiredIds()).toHaveLength(4);
  });

  it("resume --allow-edits runs only the changed action of a run saved with --no-wait", async () => {
    const env = await environment();
    const { runId, interactionId } = await suspendedRun(env, ["--allow-edits"]);
    const [first, ...kept] = retiredIds();
    simulators.messaging.answerInteraction(
      interactionId,
      "edit",
      JSON.stringify({ callback_ids: [first] }),
    );

    const resumed = await switchyard(["resume", runId, "--json", "--allow-edits"], env);
    expect(resumed.code).toBe(0);
    const report = JSON.parse(resumed.stdout) as RunReport;
    expect(report.approvals).toEqual([
      expect.objectContaining({
        outcome: "approved",
        interactionId,
        editedArguments: { callback_ids: [first] },
      }),
    ]);
    expect(report.toolCalls.find((call) => call.name === "delete_callbacks")).toMatchObject({
      status: "succeeded",
      arguments: { callback_ids: [first] },
    });
    expect(deletionsReceived().map((request) => request.body)).toEqual([[first]]);
    expect(retiredIds()).toEqual(kept);
    expect(report.output).toMatch(/^The person changed the deletion before approving it\./);
  });

  it("an edit read by a resume that does not allow edits is refused, never run", async () => {
    const env = await environment();
    const { runId, interactionId } = await suspendedRun(env, ["--allow-edits"]);
    const [first] = retiredIds();
    simulators.messaging.answerInteraction(
      interactionId,
      "edit",
      JSON.stringify({ callback_ids: [first] }),
    );

    const resumed = await switchyard(["resume", runId, "--json"], env);
    expect(resumed.code).toBe(0);
    expect((JSON.parse(resumed.stdout) as RunReport).approvals).toEqual([
      expect.objectContaining({ outcome: "refused", code: "unreadable_answer" }),
    ]);
    expect(deletionsReceived()).toHaveLength(0);
  });
});
