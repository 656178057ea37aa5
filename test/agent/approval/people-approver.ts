import { expect } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { AgentOptions } from "../../../src/agent/agent-options.js";
import type { ApprovalAuditRecord } from "../../../src/agent/approval/approval-audit-record.js";
import type { ApprovalRule } from "../../../src/agent/approval/approval-rule.js";
import {
  type ApproverDirectory,
  type ApproverIdentity,
  approverDirectory,
} from "../../../src/agent/approval/approver-directory.js";
import type { ApprovalAction, ApprovalDecision, Approver } from "../../../src/agent/approver.js";
import type { RunStore } from "../../../src/agent/durable/run-store.js";
import { actionFingerprint } from "../../../src/internal/canonical-json.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";

/** How one question is answered: a decision made from the action as the approver was given it. */
export type PeopleAnswer = (action: ApprovalAction) => ApprovalDecision;

/**
 * An approver whose answers say who gave them (`answeredBy`), as a channel
 * that recognises people would: each `read` takes the next answer. Keeps
 * every action it was asked about, with the `whoMayApprove` the gate filled.
 */
export class PeopleApprover implements Approver {
  readonly asked: ApprovalAction[] = [];
  readonly readActions: ApprovalAction[] = [];
  readonly #answers: PeopleAnswer[];

  constructor(answers: PeopleAnswer[]) {
    this.#answers = [...answers];
  }

  async ask(actions: readonly ApprovalAction[]): Promise<string> {
    this.asked.push(...actions);
    return `ticket-${this.asked.length}`;
  }

  async read(_ticket: string, actions: readonly ApprovalAction[]): Promise<ApprovalDecision[]> {
    this.readActions.push(...actions);
    return actions.map((action) => {
      const answer = this.#answers.shift();
      if (!answer) throw new Error("the test gave no more answers");
      return answer(action);
    });
  }
}

/** Approved by one identity. */
export const approvedBy =
  (answeredBy: ApproverIdentity): PeopleAnswer =>
  (action) => ({ outcome: "approved", fingerprint: action.fingerprint, answeredBy });

/** Approved by several identities, each as one of the action's approvers. */
export const approvedByEach =
  (...identities: ApproverIdentity[]): PeopleAnswer =>
  (action) => ({
    outcome: "approved",
    fingerprint: action.fingerprint,
    approvers: identities.map((answeredBy) => ({
      approverLink:
        answeredBy.channel === "messaging" ? answeredBy.id : `${answeredBy.channel}-link`,
      answeredBy,
    })),
  });

/** Denied by one identity. */
export const deniedBy =
  (answeredBy: ApproverIdentity): PeopleAnswer =>
  () => ({ outcome: "refused", code: "denied", reason: "not today", answeredBy });

/** Approved by one identity with the arguments changed. */
export const editedBy =
  (answeredBy: ApproverIdentity, editedArguments: unknown): PeopleAnswer =>
  (action) => ({
    outcome: "approved",
    fingerprint: actionFingerprint(action.toolName, editedArguments, action.target),
    editedArguments,
    answeredBy,
  });

/** Not answered yet (a durable run suspends). */
export const notYet: PeopleAnswer = () => ({ outcome: "pending" });

/**
 * The people of the tests: Alice and Dave on call, Bob on call and lead
 * (with two messaging links: a phone and a laptop), Carol in finance, Erin lead.
 */
export function testDirectory(): ApproverDirectory {
  return approverDirectory({
    people: [
      {
        id: "alice",
        name: "Alice Ng",
        roles: ["oncall"],
        identities: { messaging: ["sl_alice"], agUi: ["alice@example.com"], terminal: ["alice"] },
      },
      {
        id: "bob",
        name: "Bob Roy",
        roles: ["oncall", "lead"],
        identities: { messaging: ["sl_bob_phone", "sl_bob_laptop"], agUi: ["bob@example.com"] },
      },
      {
        id: "carol",
        name: "Carol Diaz",
        roles: ["finance"],
        identities: { messaging: ["sl_carol"], terminal: ["carol"] },
      },
      {
        id: "dave",
        name: "Dave Oyelaran",
        roles: ["oncall"],
        identities: { agUi: ["dave@example.com"] },
      },
      { id: "erin", name: "Erin Falk", roles: ["lead"], identities: { messaging: ["sl_erin"] } },
    ],
  });
}

/** The identity of each test person on one channel. */
export const by = {
  alice: { channel: "agUi", id: "alice@example.com" },
  aliceAtTerminal: { channel: "terminal", id: "alice" },
  bob: { channel: "agUi", id: "bob@example.com" },
  bobPhone: { channel: "messaging", id: "sl_bob_phone" },
  bobLaptop: { channel: "messaging", id: "sl_bob_laptop" },
  carol: { channel: "messaging", id: "sl_carol" },
  dave: { channel: "agUi", id: "dave@example.com" },
  erin: { channel: "messaging", id: "sl_erin" },
  mallory: { channel: "agUi", id: "mallory@example.com" },
} satisfies Record<string, ApproverIdentity>;

/** A deletion tool that records what it deleted, and the agent deleting through it. */
export function deletionAgent(
  options: Omit<Partial<AgentOptions>, "model" | "tools" | "stopWhen"> & {
    steps?: ConstructorParameters<typeof ScriptedModel>[0];
    needsApproval?: boolean;
  } = {},
) {
  const { steps, needsApproval, ...agentOptions } = options;
  const deleted: string[][] = [];
  const decided: ApprovalAuditRecord[] = [];
  const tool = defineTool({
    name: "delete_callbacks",
    description: "Deletes callbacks.",
    parameters: z.object({ ids: z.array(z.string()).min(1) }),
    needsApproval: needsApproval ?? true,
    target: { service: "orders", account: "acme", environment: "production" },
    execute: ({ ids }) => {
      deleted.push(ids);
      return { deleted: ids.length };
    },
  });
  const model = new ScriptedModel(
    steps ?? [
      { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_1" }] },
      { text: "done" },
    ],
  );
  const agent = new Agent({
    model,
    tools: [tool],
    onApprovalDecided: (record) => {
      decided.push(record);
    },
    ...agentOptions,
  });
  return { agent, deleted, decided, model };
}

/**
 * A run started by Alice suspends on its question; resumed by a new agent
 * on the same store, Alice's own answer is refused (`self_approval`) and
 * Bob's runs the call: who started the run is kept in its state.
 */
export async function startedByKeptAcrossResume(store: RunStore): Promise<void> {
  const rules: ApprovalRule[] = [
    { name: "production deletions", tool: "delete_callbacks", decision: "ask", roles: ["oncall"] },
  ];
  const agentWith = (answers: PeopleAnswer[]) => {
    const approver = new PeopleApprover(answers);
    const made = deletionAgent({
      approver,
      approverDirectory: testDirectory(),
      approvalPolicy: { rules },
      runStore: store,
    });
    return { ...made, approver };
  };
  for (const [answer, expected] of [
    [approvedBy(by.alice), { outcome: "refused", code: "self_approval" }],
    [
      approvedBy(by.bob),
      { outcome: "approved", people: [{ id: "bob", evidence: "bob@example.com" }] },
    ],
  ] as const) {
    const first = agentWith([notYet]);
    const suspended = await first.agent.run("tidy", {
      startedBy: "alice",
      suspendOnApproval: true,
    });
    expect(suspended.status).toBe("suspended");
    expect(suspended.state?.startedBy).toBe("alice");
    const runId = suspended.runId as string;
    expect((await store.load(runId)).startedBy).toBe("alice");

    const second = agentWith([answer]);
    const resumed = await second.agent.resume(runId);
    expect(second.approver.readActions[0]?.whoMayApprove).toMatchObject({ excluded: "alice" });
    expect(resumed.steps[0]?.toolCalls[0]?.approval).toMatchObject(expected);
    expect(second.deleted).toEqual(expected.outcome === "approved" ? [["cb-1"]] : []);
    expect(second.decided[0]).toMatchObject(expected);
    const stored = await store.load(runId);
    expect(stored.startedBy).toBe("alice");
    expect(stored.finishedCalls?.[0]?.approval).toMatchObject(expected);
  }
}
