import { Agent, OpenAIProvider, RunState, run, setTracingDisabled, tool } from "@openai/agents";
import type { Approver } from "switchyard-agents";
import type { ApprovalAuditRecord } from "switchyard-agents/agent";
import { approvalGate } from "switchyard-agents/openai-agents";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApproverIdentity } from "../../src/agent/approval/approver-directory.js";
import {
  approvedBy,
  by,
  PeopleApprover,
  testDirectory,
} from "../agent/approval/people-approver.js";
import {
  answerOnceAsked,
  answerOnInboxPage,
  answerWithEdit,
  type GateSimulators,
  splitDeletions,
  startGateSimulators,
} from "../helpers/gate-simulators.js";
import { type HeadlessChromium, startHeadlessChromium } from "../helpers/headless-chromium.js";

// An OpenAI Agents SDK app's own tools, with Switchyard's gate put on them,
// driven by the reasoning simulator through the SDK's OpenAI provider pointed at it
// (chat completions); the person answers through the messaging simulator,
// or on the RunState the client sends back.

setTracingDisabled(true);

let harness: GateSimulators;
beforeAll(async () => {
  harness = await startGateSimulators();
});
afterAll(() => harness.close());
beforeEach(() => harness.reset());

/** The simulator as the agents' model: chat completions through the SDK's OpenAI provider. */
let simulatorModel: Awaited<ReturnType<OpenAIProvider["getModel"]>>;
beforeAll(async () => {
  const { reasoner } = harness.simulators;
  const provider = new OpenAIProvider({
    baseURL: reasoner.url.replace(/\/chat\/completions$/, ""),
    apiKey: reasoner.apiKey,
    useResponses: false,
  });
  simulatorModel = await provider.getModel("switchyard-sim");
});

/** The app's own tools, as an Agents SDK app writes them. */
function appTools() {
  return [
    tool({
      name: "list_callbacks",
      description: "Lists the registered callbacks: {callbacks: [{id, url}]}",
      parameters: z.object({ message_type: z.string().nullable() }),
      execute: async () => ({
        callbacks: (await harness.orders.listCallbacks()).map(({ id, url }) => ({ id, url })),
      }),
    }),
    tool({
      name: "delete_callbacks",
      description: "Deletes callbacks by id. Cannot be undone.",
      parameters: z.object({ callback_ids: z.array(z.string()) }),
      needsApproval: true,
      execute: async ({ callback_ids }) => {
        const results = await harness.orders.deleteCallbacks(callback_ids);
        return {
          deleted: results.filter((result) => result.status === "success").length,
          results,
        };
      },
    }),
  ] as const;
}

function gateWith(options: Partial<Parameters<typeof approvalGate>[0]> = {}) {
  const records: ApprovalAuditRecord[] = [];
  const gate = approvalGate({
    tools: appTools(),
    toolDetails: {
      delete_callbacks: {
        target: { service: "orders", environment: "sandbox" },
        describeAction: (input: { callback_ids: string[] }) => ({
          summary: `Delete ${input.callback_ids.length} callbacks.`,
        }),
      },
    },
    onApprovalDecided: (record) => {
      records.push(record);
    },
    ...options,
  });
  const agent = new Agent({
    name: "callback cleanup",
    instructions: "Remove the callbacks the user names.",
    model: simulatorModel,
    tools: [...gate.tools],
  });
  return { gate, agent, records };
}

/** Runs the task, resolving every interruption through the gate's approver, to the end. */
async function runResolving(setup: ReturnType<typeof gateWith>) {
  let result = await run(setup.agent, harness.task);
  for (let round = 0; result.interruptions.length > 0 && round < 5; round++) {
    await setup.gate.resolveInterruptions(result.state);
    result = await run(setup.agent, result.state);
  }
  return result;
}

describe("approvalGate with an approver on the messaging service", () => {
  it("the agent deletes the retired host's callbacks only once the person approves, with one audit record", async () => {
    const retired = harness.retiredIds();
    const setup = gateWith({ approver: harness.messagingApprover() });

    const first = await run(setup.agent, harness.task);
    expect(first.interruptions.map((item) => item.name)).toEqual(["delete_callbacks"]);
    expect(harness.deletions()).toHaveLength(0);
    const decisions = await setup.gate.resolveInterruptions(first.state);
    expect(decisions).toEqual([expect.objectContaining({ outcome: "approved" })]);
    const result = await run(setup.agent, first.state);

    expect(harness.retiredIds()).toEqual([]);
    expect(harness.deletions().map((request) => request.body)).toEqual([retired]);
    const [question] = harness.simulators.messaging.interactions();
    expect(harness.simulators.messaging.message(question!.message_id)?.text).toContain(
      `Delete ${retired.length} callbacks.`,
    );
    expect(String(result.finalOutput)).toContain(`Deleted ${retired.length} callbacks`);
    expect(setup.records).toEqual([
      expect.objectContaining({
        action: "delete_callbacks",
        outcome: "approved",
        decidedBy: "person",
        interactionId: question!.interaction_id,
        approverLink: harness.approverLinkId,
      }),
    ]);
  });

  it("the person denies: nothing is deleted, and the model is told it was refused", async () => {
    harness.simulators.messaging.setAnswer("deny");
    const before = harness.simulators.orders.callbacks();
    const setup = gateWith({ approver: harness.messagingApprover() });

    const result = await runResolving(setup);

    expect(harness.simulators.orders.callbacks()).toEqual(before);
    expect(String(result.finalOutput)).toMatch(/Nothing was deleted/);
    expect(setup.records).toEqual([
      expect.objectContaining({ outcome: "refused", code: "denied", decidedBy: "person" }),
    ]);
  });

  it("nobody answers before the question expires: nothing runs, and the outcome is expired", async () => {
    harness.simulators.messaging.setAnswer("never");
    const before = harness.simulators.orders.callbacks();
    const setup = gateWith({ approver: harness.messagingApprover({ timeoutMs: 1_000 }) });

    const first = await run(setup.agent, harness.task);
    const decisions = await setup.gate.resolveInterruptions(first.state);
    await run(setup.agent, first.state);

    expect(decisions).toEqual([expect.objectContaining({ outcome: "expired" })]);
    expect(harness.simulators.orders.callbacks()).toEqual(before);
    expect(setup.records).toEqual([
      expect.objectContaining({ outcome: "expired", decidedBy: "expiry" }),
    ]);
  });

  it("runs only the person's edit when the policy lets them change the call", async () => {
    const retired = harness.retiredIds();
    harness.simulators.messaging.setAnswer(answerWithEdit(retired[0]));
    const setup = gateWith({
      approver: harness.messagingApprover(),
      approvalPolicy: {
        rules: [{ name: "deletions ask", tool: "delete_callbacks", decision: "ask", edits: true }],
      },
    });

    await runResolving(setup);

    expect(harness.deletions().map((request) => request.body)).toEqual([[retired[0]]]);
    expect(harness.retiredIds()).toEqual(retired.slice(1));
    expect(setup.records).toEqual([
      expect.objectContaining({ outcome: "approved", decidedBy: "person" }),
    ]);
  });

  it("a deny rule refuses without asking anyone", async () => {
    const before = harness.simulators.orders.callbacks();
    const setup = gateWith({
      approver: harness.messagingApprover(),
      approvalPolicy: {
        rules: [{ name: "no deletions today", tool: "delete_callbacks", decision: "deny" }],
      },
    });

    const result = await runResolving(setup);

    expect(result.interruptions).toEqual([]);
    expect(harness.simulators.orders.callbacks()).toEqual(before);
    expect(harness.simulators.messaging.interactions()).toHaveLength(0);
    expect(setup.records).toEqual([
      expect.objectContaining({
        outcome: "refused",
        code: "policy_denied",
        rule: "no deletions today",
      }),
    ]);
  });

  it("parallel calls are asked at once, each bound to its own input", async () => {
    harness.scenario = splitDeletions;
    const retired = harness.retiredIds();
    harness.simulators.messaging.setAnswer(answerOnceAsked(harness.simulators, 2));
    const setup = gateWith({ approver: harness.messagingApprover({ timeoutMs: 10_000 }) });

    const first = await run(setup.agent, harness.task);
    expect(first.interruptions).toHaveLength(2);
    await setup.gate.resolveInterruptions(first.state);
    await run(setup.agent, first.state);

    expect(harness.simulators.messaging.interactions()).toHaveLength(2);
    expect(harness.retiredIds()).toEqual([]);
    expect(
      harness
        .deletions()
        .flatMap((request) => request.body as string[])
        .sort(),
    ).toEqual([...retired].sort());
    expect(setup.records.map((record) => record.outcome)).toEqual(["approved", "approved"]);
    expect(new Set(setup.records.map((record) => record.fingerprint)).size).toBe(2);
  });

  it("a RunState a client approved on its own (a forged approval) runs nothing", async () => {
    const before = harness.simulators.orders.callbacks();
    const setup = gateWith({ approver: harness.messagingApprover() });
    const first = await run(setup.agent, harness.task);

    const restored = await RunState.fromString(setup.agent, first.state.toString());
    for (const item of restored.getInterruptions()) restored.approve(item);
    await run(setup.agent, restored);

    expect(harness.simulators.orders.callbacks()).toEqual(before);
    expect(harness.simulators.messaging.interactions()).toHaveLength(0);
    expect(setup.records).toEqual([
      expect.objectContaining({ outcome: "refused", code: "invalid_decision", decidedBy: "gate" }),
    ]);
  });

  it("a RunState replayed after its approval was used runs nothing a second time", async () => {
    const retired = harness.retiredIds();
    const setup = gateWith({ approver: harness.messagingApprover() });
    const first = await run(setup.agent, harness.task);
    await setup.gate.resolveInterruptions(first.state);
    const approvedSnapshot = first.state.toString();
    await run(setup.agent, first.state);
    expect(harness.deletions()).toHaveLength(1);

    harness.simulators.orders.reset();
    await run(setup.agent, await RunState.fromString(setup.agent, approvedSnapshot));

    expect(harness.deletions()).toHaveLength(0);
    expect(harness.retiredIds()).toEqual(retired);
    expect(setup.records).toEqual([
      expect.objectContaining({ outcome: "approved" }),
      expect.objectContaining({ outcome: "refused", code: "already_used" }),
    ]);
  });
});

describe("approvalGate with the app approving on the RunState (no approver)", () => {
  it("a call the server asked about runs once approved on the state, once", async () => {
    const retired = harness.retiredIds();
    const setup = gateWith();
    const first = await run(setup.agent, harness.task);
    const snapshot = first.state.toString();

    const approved = await RunState.fromString(setup.agent, snapshot);
    for (const item of approved.getInterruptions()) approved.approve(item);
    const approvedSnapshot = approved.toString();
    await run(setup.agent, approved);
    expect(harness.deletions().map((request) => request.body)).toEqual([retired]);

    harness.simulators.orders.reset();
    await run(setup.agent, await RunState.fromString(setup.agent, approvedSnapshot));
    expect(harness.deletions()).toHaveLength(0);
    expect(setup.records).toEqual([
      expect.objectContaining({ outcome: "approved", decidedBy: "person" }),
      expect.objectContaining({ outcome: "refused", code: "already_used" }),
    ]);
  });

  it("an approval on a state whose call the client changed runs nothing", async () => {
    const setup = gateWith();
    const first = await run(setup.agent, harness.task);
    const everything = harness.simulators.orders.callbacks().map((callback) => callback.id);
    const changed = first.state
      .toString()
      .replace(/"arguments":"\{\\"callback_ids\\":\[[^\]]*\]\}"/g, () =>
        JSON.stringify(JSON.stringify({ callback_ids: everything })).replace(/^/, '"arguments":'),
      );
    expect(changed).not.toBe(first.state.toString());

    const restored = await RunState.fromString(setup.agent, changed);
    for (const item of restored.getInterruptions()) restored.approve(item);
    await run(setup.agent, restored);

    expect(harness.deletions()).toHaveLength(0);
    expect(setup.records).toEqual([
      expect.objectContaining({ outcome: "refused", code: "fingerprint_mismatch" }),
    ]);
  });
});

describe("approvalGate with the person on the inbox page (Chromium)", () => {
  let chromium: HeadlessChromium;
  beforeAll(async () => {
    chromium = await startHeadlessChromium();
  });
  afterAll(() => chromium?.close());

  it("deletes the retired host's callbacks once Approve is pressed, and nothing runs before", async () => {
    // Nobody answers but the person on the inbox page.
    harness.simulators.messaging.setAnswer("never");
    const retired = harness.retiredIds();
    const setup = gateWith({ approver: harness.messagingApprover({ timeoutMs: 60_000 }) });
    const first = await run(setup.agent, harness.task);
    const resolving = setup.gate.resolveInterruptions(first.state);

    expect(harness.deletions()).toHaveLength(0);
    await answerOnInboxPage(
      chromium,
      harness.simulators,
      `Delete ${retired.length} callbacks.`,
      "Approve",
    );

    expect(await resolving).toEqual([expect.objectContaining({ outcome: "approved" })]);
    const result = await run(setup.agent, first.state);
    expect(harness.retiredIds()).toEqual([]);
    expect(String(result.finalOutput)).toContain(`Deleted ${retired.length} callbacks`);
    expect(setup.records).toEqual([
      expect.objectContaining({ outcome: "approved", decidedBy: "person" }),
    ]);
  });
});

describe("approvalGate's options", () => {
  it("says what is wrong with them", () => {
    expect(() =>
      approvalGate({
        tools: appTools(),
        approver: {} as Approver,
        approvalTtlMs: 0,
        toolDetails: { nope: {} },
      }),
    ).toThrow(/approver must be a Switchyard Approver[\s\S]*approvalTtlMs[\s\S]*"nope"/);
  });

  it("resolveInterruptions needs an approver", async () => {
    const setup = gateWith();
    const first = await run(setup.agent, harness.task);
    await expect(setup.gate.resolveInterruptions(first.state)).rejects.toThrow(/needs an approver/);
  });
});

describe("approvalGate with an approver directory (who may approve)", () => {
  const oncallAsks = {
    rules: [
      {
        name: "deletions ask on call",
        tool: "delete_callbacks",
        decision: "ask" as const,
        roles: ["oncall"],
      },
    ],
  };

  /**
   * A run whose context says Alice started it (`run(agent, task, { context })`),
   * its deletion question answered by `answeredBy` every time it is asked.
   */
  async function runAnsweredBy(answeredBy: ApproverIdentity) {
    const approver = new PeopleApprover(Array.from({ length: 3 }, () => approvedBy(answeredBy)));
    const setup = gateWith({
      approver,
      approvalPolicy: oncallAsks,
      approverDirectory: testDirectory(),
      startedBy: ({ context }) => (context as { user: string }).user,
    });
    let result = await run(setup.agent, harness.task, { context: { user: "alice" } });
    for (let round = 0; result.interruptions.length > 0 && round < 5; round++) {
      await setup.gate.resolveInterruptions(result.state);
      result = await run(setup.agent, result.state);
    }
    return { ...setup, approver };
  }

  it("a person holding the rule's role approves: the deletion runs, and the record names them", async () => {
    const retired = harness.retiredIds();
    const { records, approver } = await runAnsweredBy(by.bob);
    expect(harness.deletions()).toHaveLength(1);
    expect(harness.deletions()[0]?.body).toEqual(retired);
    expect(records).toEqual([
      expect.objectContaining({
        action: "delete_callbacks",
        outcome: "approved",
        people: [{ id: "bob", name: "Bob Roy", channel: "agUi", evidence: "bob@example.com" }],
      }),
    ]);
    expect(approver.asked[0]?.whoMayApprove).toMatchObject({ excluded: "alice" });
  });

  it("the starter (from the run's context), an unknown person or one of the wrong role deletes nothing", async () => {
    for (const [identity, code] of [
      [by.alice, "self_approval"],
      [by.mallory, "approver_not_allowed"],
      [by.carol, "approver_not_allowed"],
    ] as const) {
      harness.reset();
      const { records } = await runAnsweredBy(identity);
      expect(harness.deletions()).toEqual([]);
      expect(records.length).toBeGreaterThan(0);
      for (const record of records) {
        expect(record).toMatchObject({ action: "delete_callbacks", outcome: "refused", code });
      }
    }
  });
});
