import { describe, expect, it } from "vitest";
import type { ApprovalRule } from "../../../src/agent/approval/approval-rule.js";
import type {
  ApproverDirectory,
  ApproverPerson,
} from "../../../src/agent/approval/approver-directory.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { capturingLogger } from "../fixtures.js";
import {
  approvedBy,
  approvedByEach,
  by,
  deletionAgent,
  deniedBy,
  editedBy,
  type PeopleAnswer,
  PeopleApprover,
  testDirectory,
} from "./people-approver.js";

const oncall: ApprovalRule = {
  name: "production deletions",
  tool: "delete_callbacks",
  decision: "ask",
  roles: ["oncall"],
};

/** A run started by `startedBy`, asking under `rule`, answered by `answers`. */
async function runAs(
  startedBy: string | undefined,
  rule: ApprovalRule | undefined,
  answers: PeopleAnswer[],
  directory: ApproverDirectory = testDirectory(),
) {
  const approver = new PeopleApprover(answers);
  const captured = capturingLogger();
  const made = deletionAgent({
    approver,
    logger: captured.logger,
    approverDirectory: directory,
    ...(rule ? { approvalPolicy: { rules: [rule] } } : {}),
  });
  const result = await made.agent.run("tidy the callbacks", {
    ...(startedBy !== undefined ? { startedBy } : {}),
  });
  const record = result.steps[0]?.toolCalls[0];
  return { ...made, approver, result, record, approval: record?.approval, lines: captured.lines };
}

describe("who may approve: a rule with roles, the run's starter excluded", () => {
  it("an allowed person's approval runs the call, and every record names them", async () => {
    const { deleted, approver, approval, decided, result, lines } = await runAs("alice", oncall, [
      approvedBy(by.bob),
    ]);
    expect(lines.find((line) => line.audit === "approval")).toMatchObject({
      outcome: "approved",
      people: ["bob"],
    });
    expect(result.status).toBe("completed");
    expect(deleted).toEqual([["cb-1"]]);
    const bob = { id: "bob", name: "Bob Roy", channel: "agUi", evidence: "bob@example.com" };
    expect(approval).toMatchObject({ outcome: "approved", people: [bob] });
    expect(decided).toMatchObject([{ outcome: "approved", decidedBy: "person", people: [bob] }]);
    expect(decided[0]?.answeredBy).toEqual(by.bob);
    // The question said who may answer: on call, less Alice who started the run.
    expect(approver.asked[0]?.whoMayApprove).toMatchObject({
      roles: ["oncall"],
      required: 1,
      excluded: "alice",
    });
    expect(approver.asked[0]?.whoMayApprove?.people?.map((person) => person.id)).toEqual([
      "bob",
      "dave",
    ]);
  });

  it("the person who started the run cannot approve it (self_approval), on any of their channels", async () => {
    for (const identity of [by.alice, by.aliceAtTerminal]) {
      const { deleted, approval, decided } = await runAs("alice", oncall, [approvedBy(identity)]);
      expect(deleted).toEqual([]);
      expect(approval).toMatchObject({
        outcome: "refused",
        code: "self_approval",
        people: [{ id: "alice", channel: identity.channel, evidence: identity.id }],
      });
      expect(decided).toMatchObject([{ outcome: "refused", code: "self_approval" }]);
    }
  });

  it("a rule with allowSelfApproval lets the starter approve", async () => {
    const { deleted, approval, approver } = await runAs(
      "alice",
      { ...oncall, allowSelfApproval: true },
      [approvedBy(by.alice)],
    );
    expect(deleted).toEqual([["cb-1"]]);
    expect(approval).toMatchObject({ outcome: "approved", people: [{ id: "alice" }] });
    expect(approver.asked[0]?.whoMayApprove?.excluded).toBeUndefined();
  });

  it("an identity nobody in the directory holds approves nothing (approver_not_allowed)", async () => {
    const { deleted, approval, decided } = await runAs("alice", oncall, [approvedBy(by.mallory)]);
    expect(deleted).toEqual([]);
    expect(approval).toMatchObject({
      outcome: "refused",
      code: "approver_not_allowed",
      answeredBy: by.mallory,
    });
    expect(approval).not.toHaveProperty("people");
    expect(decided[0]).toMatchObject({ code: "approver_not_allowed", answeredBy: by.mallory });
  });

  it("an answer that says nobody answered approves nothing when there is a directory", async () => {
    const { deleted, approval } = await runAs("alice", oncall, [
      (action) => ({ outcome: "approved", fingerprint: action.fingerprint }),
    ]);
    expect(deleted).toEqual([]);
    expect(approval).toMatchObject({ outcome: "refused", code: "approver_not_allowed" });
  });

  it("a person without the rule's role approves nothing, and the record names them", async () => {
    const { deleted, approval } = await runAs("alice", oncall, [approvedBy(by.carol)]);
    expect(deleted).toEqual([]);
    expect(approval).toMatchObject({
      outcome: "refused",
      code: "approver_not_allowed",
      people: [{ id: "carol", name: "Carol Diaz", channel: "messaging", evidence: "sl_carol" }],
    });
    expect((approval as { reason: string }).reason).toContain("oncall");
  });

  it("a forged answeredBy (not a channel identity) counts for nothing", async () => {
    const { deleted, approval } = await runAs("alice", oncall, [
      (action) =>
        ({
          outcome: "approved",
          fingerprint: action.fingerprint,
          answeredBy: { channel: "root", id: "bob@example.com" },
        }) as never,
    ]);
    expect(deleted).toEqual([]);
    expect(approval).toMatchObject({ outcome: "refused", code: "invalid_decision" });
  });

  it("a denial counts from a person allowed; anyone else's is refused approver_not_allowed", async () => {
    const allowed = await runAs("alice", oncall, [deniedBy(by.dave)]);
    expect(allowed.approval).toMatchObject({
      outcome: "refused",
      code: "denied",
      people: [{ id: "dave" }],
    });
    const stranger = await runAs("alice", oncall, [deniedBy(by.mallory)]);
    expect(stranger.approval).toMatchObject({ outcome: "refused", code: "approver_not_allowed" });
    expect(stranger.deleted).toEqual([]);
  });
});

describe("who may approve: M of N distinct people", () => {
  const twoOnCall: ApprovalRule = { ...oncall, required: 2 };

  it("one person answering twice (two links of theirs) counts once: not_enough_approvers", async () => {
    const { deleted, approval } = await runAs("carol", twoOnCall, [
      approvedByEach(by.bobPhone, by.bobLaptop),
    ]);
    expect(deleted).toEqual([]);
    expect(approval).toMatchObject({
      outcome: "refused",
      code: "not_enough_approvers",
      people: [{ id: "bob" }],
    });
    // The very same identity twice is one answer.
    const same = await runAs("carol", twoOnCall, [approvedByEach(by.bob, by.bob)]);
    expect(same.deleted).toEqual([]);
    expect(same.approval).toMatchObject({ outcome: "refused", code: "not_enough_approvers" });
  });

  it("two people of the role approve: it runs, naming both", async () => {
    const { deleted, approval, decided } = await runAs("carol", twoOnCall, [
      approvedByEach(by.bobPhone, by.dave),
    ]);
    expect(deleted).toEqual([["cb-1"]]);
    const people = [
      { id: "bob", name: "Bob Roy", channel: "messaging", evidence: "sl_bob_phone" },
      { id: "dave", name: "Dave Oyelaran", channel: "agUi", evidence: "dave@example.com" },
    ];
    expect(approval).toMatchObject({ outcome: "approved", people });
    expect(decided[0]?.people).toEqual(people);
  });

  it("3 of 4 people approve a rule requiring 3: it runs", async () => {
    const rule: ApprovalRule = { ...oncall, roles: ["oncall", "lead"], required: 3 };
    const { deleted, approval, approver } = await runAs("carol", rule, [
      approvedByEach(by.alice, by.dave, by.erin),
    ]);
    expect(approver.asked[0]?.whoMayApprove?.people?.map((person) => person.id)).toEqual([
      "alice",
      "bob",
      "dave",
      "erin",
    ]);
    expect(approver.asked[0]?.requiredApprovers).toBe(3);
    expect(deleted).toEqual([["cb-1"]]);
    expect(
      (approval as unknown as { people: ApproverPerson[] }).people.map((person) => person.id),
    ).toEqual(["alice", "dave", "erin"]);
  });

  it("2 of a rule requiring 3 run nothing; nor does one wrong person among three", async () => {
    const rule: ApprovalRule = { ...oncall, required: 3 };
    const two = await runAs("carol", rule, [approvedByEach(by.alice, by.dave)]);
    expect(two.approval).toMatchObject({ code: "not_enough_approvers" });
    const wrong = await runAs("erin", rule, [approvedByEach(by.alice, by.dave, by.carol)]);
    expect(wrong.approval).toMatchObject({ code: "approver_not_allowed" });
    const self = await runAs("alice", rule, [approvedByEach(by.alice, by.bob, by.dave)]);
    expect(self.approval).toMatchObject({ code: "self_approval" });
    expect([...two.deleted, ...wrong.deleted, ...self.deleted]).toEqual([]);
  });
});

describe("who may approve: escalation, defaults, edits and your own directory", () => {
  it("escalation by role names the next people, and their approval counts", async () => {
    const rule: ApprovalRule = { ...oncall, escalateTo: { roles: ["lead"], afterMs: 120_000 } };
    const { approver, deleted, approval } = await runAs("alice", rule, [approvedBy(by.erin)]);
    expect(approver.asked[0]?.whoMayApprove?.escalation).toMatchObject({
      roles: ["lead"],
      afterMs: 120_000,
    });
    expect(
      approver.asked[0]?.whoMayApprove?.escalation?.people?.map((person) => person.id),
    ).toEqual(["bob", "erin"]);
    expect(deleted).toEqual([["cb-1"]]);
    expect(approval).toMatchObject({ people: [{ id: "erin" }] });
  });

  it("a tool's own needsApproval is answered by defaultApprovers (else anyone but the starter)", async () => {
    const ask = async (answer: PeopleAnswer, defaults?: { roles: string[] }) => {
      const approver = new PeopleApprover([answer]);
      const made = deletionAgent({
        approver,
        approverDirectory: testDirectory(),
        ...(defaults ? { approvalPolicy: { defaultApprovers: defaults } } : {}),
      });
      const result = await made.agent.run("tidy", { startedBy: "alice" });
      return { ...made, approval: result.steps[0]?.toolCalls[0]?.approval };
    };
    expect((await ask(approvedBy(by.carol))).approval).toMatchObject({ outcome: "approved" });
    expect((await ask(approvedBy(by.alice))).approval).toMatchObject({ code: "self_approval" });
    const lead = { roles: ["lead"] };
    expect((await ask(approvedBy(by.erin), lead)).approval).toMatchObject({ outcome: "approved" });
    expect((await ask(approvedBy(by.dave), lead)).approval).toMatchObject({
      code: "approver_not_allowed",
    });
  });

  it("an edited action runs only when its approver is allowed", async () => {
    const rule: ApprovalRule = { ...oncall, edits: true };
    const edited = { ids: ["cb-2"] };
    const allowed = await runAs("alice", rule, [editedBy(by.bob, edited)]);
    expect(allowed.deleted).toEqual([["cb-2"]]);
    expect(allowed.approval).toMatchObject({ outcome: "approved", people: [{ id: "bob" }] });
    const wrongRole = await runAs("alice", rule, [editedBy(by.carol, edited)]);
    expect(wrongRole.deleted).toEqual([]);
    expect(wrongRole.approval).toMatchObject({ code: "approver_not_allowed" });
  });

  it("an edit a rule requiring two people matches is refused: one person approved it", async () => {
    const rules: ApprovalRule[] = [
      { ...oncall, edits: true, when: (args) => (args as { ids: string[] }).ids.length === 1 },
      {
        name: "bulk deletions",
        tool: "delete_callbacks",
        decision: "ask",
        required: 2,
        when: (args) => (args as { ids: string[] }).ids.length > 1,
      },
    ];
    const approver = new PeopleApprover([editedBy(by.bob, { ids: ["cb-1", "cb-2"] })]);
    const { agent, deleted } = deletionAgent({
      approver,
      approverDirectory: testDirectory(),
      approvalPolicy: { rules },
    });
    const result = await agent.run("tidy", { startedBy: "alice" });
    expect(deleted).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({
      code: "not_enough_approvers",
    });
  });

  it("a directory of your own (a function of your identity provider) is all the gate needs", async () => {
    const groups = new Map([
      ["ops-anna", ["oncall"]],
      ["ops-ben", ["sales"]],
    ]);
    const person = (id: string): ApproverPerson | undefined => {
      const roles = groups.get(id);
      return roles ? { id, name: id.toUpperCase(), roles, identities: {} } : undefined;
    };
    const lookups: string[] = [];
    const directory: ApproverDirectory = {
      recognize: async (identity) => {
        lookups.push(`${identity.channel}:${identity.id}`);
        return identity.channel === "agUi" ? person(identity.id.replace(/@idp$/, "")) : undefined;
      },
      person: async (id) => person(id),
    };
    const anna = { channel: "agUi", id: "ops-anna@idp" } as const;
    const ok = await runAs("ops-ben", oncall, [approvedBy(anna)], directory);
    expect(ok.deleted).toEqual([["cb-1"]]);
    expect(ok.approval).toMatchObject({
      people: [{ id: "ops-anna", name: "OPS-ANNA", channel: "agUi", evidence: "ops-anna@idp" }],
    });
    // Without withRoles the question names no people; the gate still judges the answer.
    expect(ok.approver.asked[0]?.whoMayApprove).toEqual({
      roles: ["oncall"],
      required: 1,
      excluded: "ops-ben",
    });
    const ben = await runAs(
      "ops-anna",
      oncall,
      [approvedBy({ channel: "agUi", id: "ops-ben@idp" })],
      directory,
    );
    expect(ben.approval).toMatchObject({ code: "approver_not_allowed" });
    expect(lookups).toEqual(["agUi:ops-anna@idp", "agUi:ops-ben@idp"]);
  });

  it("a directory that throws approves nothing", async () => {
    const directory: ApproverDirectory = {
      recognize: () => {
        throw new Error("identity provider down");
      },
      person: (id) => ({ id, name: id, roles: ["oncall"], identities: {} }),
    };
    const { deleted, approval } = await runAs("alice", oncall, [approvedBy(by.bob)], directory);
    expect(deleted).toEqual([]);
    expect(approval).toMatchObject({ code: "approver_error" });
  });
});

describe("who started the run", () => {
  it("a directory id the directory does not know fails the run at its start", async () => {
    const { agent, deleted, model } = deletionAgent({
      approver: new PeopleApprover([]),
      approverDirectory: testDirectory(),
    });
    const result = await agent.run("tidy", { startedBy: "zed" });
    expect(result.status).toBe("failed");
    expect(result.error).toBeInstanceOf(ConfigurationError);
    expect(result.error?.message).toContain('startedBy "zed" is not a person');
    expect(model.requests).toHaveLength(0);
    expect(deleted).toEqual([]);
  });

  it("an identity the directory does not recognise is still the starter: the same identity cannot approve", async () => {
    const stranger = { channel: "terminal", id: "ops" } as const;
    const approver = new PeopleApprover([approvedBy(stranger)]);
    const { agent, deleted } = deletionAgent({
      approver,
      approverDirectory: testDirectory(),
      approvalPolicy: { defaultApprovers: { allowSelfApproval: false } },
    });
    const result = await agent.run("tidy", { startedBy: stranger });
    expect(deleted).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({ code: "self_approval" });
  });

  it("a starter recognised by their identity is that person on every channel", async () => {
    const approver = new PeopleApprover([approvedBy(by.alice)]);
    const { agent, deleted } = deletionAgent({
      approver,
      approverDirectory: testDirectory(),
      approvalPolicy: { rules: [oncall] },
    });
    const result = await agent.run("tidy", { startedBy: by.aliceAtTerminal });
    expect(deleted).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({ code: "self_approval" });
    expect(approver.asked[0]?.whoMayApprove?.excluded).toBe("alice");
  });

  it("stream() reads startedBy as run() does", async () => {
    const approver = new PeopleApprover([approvedBy(by.alice)]);
    const { agent, deleted } = deletionAgent({
      approver,
      approverDirectory: testDirectory(),
      approvalPolicy: { rules: [oncall] },
    });
    const result = await agent.stream("tidy", { startedBy: "alice" }).result;
    expect(deleted).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({ code: "self_approval" });
    const unknown = await agent.stream("tidy", { startedBy: "zed" }).result;
    expect(unknown.status).toBe("failed");
    expect(unknown.error?.message).toContain('startedBy "zed" is not a person');
  });

  it("startedBy must be a directory id or a channel identity", async () => {
    const { agent } = deletionAgent({ approver: new PeopleApprover([]) });
    await expect(
      agent.run("tidy", { startedBy: { channel: "fax", id: "x" } as never }),
    ).rejects.toThrow(
      /startedBy must be a person's id in the approver directory, or a channel identity/,
    );
    await expect(agent.run("tidy", { startedBy: "" })).rejects.toThrow(ConfigurationError);
  });
});

describe("who may approve: the agent's options", () => {
  const build = (options: Parameters<typeof deletionAgent>[0]) => () =>
    deletionAgent({ approver: new PeopleApprover([]), ...options });

  it("rules naming people need an approver directory", () => {
    for (const rule of [
      { ...oncall },
      { ...oncall, roles: undefined, allowSelfApproval: true },
      { ...oncall, roles: undefined, escalateTo: { roles: ["lead"], afterMs: 1000 } },
      { ...oncall, roles: undefined, required: 3 },
    ]) {
      expect(build({ approvalPolicy: { rules: [rule] } })).toThrow(
        /only an approver directory can judge: give the agent approverDirectory/,
      );
    }
    expect(build({ approvalPolicy: { defaultApprovers: { required: 1 } } })).toThrow(
      /defaultApprovers says who may approve, which only an approver directory can judge/,
    );
    // Two approvers told apart by their links, as before.
    expect(
      build({ approvalPolicy: { rules: [{ ...oncall, roles: undefined, required: 2 }] } }),
    ).not.toThrow();
  });

  it("checks required, roles, allowSelfApproval, escalateTo and defaultApprovers", () => {
    const withDirectory = (rule: Partial<ApprovalRule>) =>
      build({
        approverDirectory: testDirectory(),
        approvalPolicy: { rules: [{ ...oncall, ...rule } as ApprovalRule] },
      });
    for (const required of [0, 11, 1.5, "2"]) {
      expect(withDirectory({ required: required as number })).toThrow(
        /required must be a whole number from 1 to 10/,
      );
    }
    expect(withDirectory({ required: 10 })).not.toThrow();
    expect(withDirectory({ roles: [] })).toThrow(/roles must be a non-empty list of role names/);
    expect(withDirectory({ allowSelfApproval: "yes" as never })).toThrow(
      /allowSelfApproval must be true or false/,
    );
    expect(withDirectory({ escalateTo: { roles: ["lead"], afterMs: -1 } })).toThrow(
      /escalateTo must be \{ roles: \["lead"\], afterMs: 120000 \}/,
    );
    expect(withDirectory({ decision: "allow" })).toThrow(/apply to "ask" rules only/);
    expect(
      build({
        approverDirectory: testDirectory(),
        approvalPolicy: { defaultApprovers: { roles: ["lead"], quorum: 2 } as never },
      }),
    ).toThrow(/"quorum" is not one of them/);
  });

  it("approverDirectory must have recognize and person", () => {
    expect(build({ approverDirectory: { recognize: () => undefined } as never })).toThrow(
      /approverDirectory must be an ApproverDirectory.*it lacks person\(\)/,
    );
    expect(
      build({
        approverDirectory: {
          recognize: () => undefined,
          person: () => undefined,
          withRoles: 3,
        } as never,
      }),
    ).toThrow(/withRoles\(roles\), when given, a function/);
  });
});

describe("without a directory nothing changes", () => {
  it("an answer that names who gave it counts as the approver gives it, and names no people", async () => {
    const approver = new PeopleApprover([approvedBy(by.mallory)]);
    const { agent, deleted, decided } = deletionAgent({ approver });
    const result = await agent.run("tidy", { startedBy: "alice", runId: "run_without_directory" });
    expect(deleted).toEqual([["cb-1"]]);
    expect(result.steps[0]?.toolCalls[0]?.approval).not.toHaveProperty("people");
    expect(approver.asked[0]).not.toHaveProperty("whoMayApprove");
    expect(decided[0]).not.toHaveProperty("people");
    expect(result.state?.startedBy).toBe("alice");
  });
});
