import { describe, expect, it } from "vitest";
import type { ApprovalRule } from "../../../src/agent/approval/approval-rule.js";
import type {
  ApproverDirectory,
  ApproverPerson,
} from "../../../src/agent/approval/approver-directory.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { capturingLogger } from "../fixtures.js";
import { approvedBy, by, deletionAgent, PeopleApprover, testDirectory } from "./people-approver.js";

const oncall: ApprovalRule = {
  name: "production deletions",
  tool: "delete_callbacks",
  decision: "ask",
  roles: ["oncall"],
};

const bob = {
  id: "bob",
  name: "Bob Roy",
  roles: ["oncall", "lead"],
  identities: { agUi: ["bob@example.com"] },
};

/** Bob as a directory of your own might give him wrong, and the field the error names. */
const malformed: { what: string; person: unknown; field: RegExp }[] = [
  {
    what: "without a name",
    person: { id: bob.id, roles: bob.roles, identities: bob.identities },
    field: /\.name must be a non-empty string of at most 200 characters/,
  },
  {
    what: "without identities",
    person: { id: bob.id, name: bob.name, roles: bob.roles },
    field: /\.identities must be an object such as \{ messaging: \["sl_\.\.\."\]/,
  },
  {
    what: "with a role that is not a string",
    person: { ...bob, roles: ["oncall", 7] },
    field: /\.roles must be a list of role names, e.g\. \["oncall"\]/,
  },
];

const howToFix =
  /\(a directory's recognize, person and withRoles must give whole people, \{ id, name, roles, identities \}.*approverDirectory\(\{ people \}\) builds one that does\)/;

/** The test directory with one method replaced by one of your own. */
function directoryWith(method: Partial<ApproverDirectory>): ApproverDirectory {
  const directory = testDirectory();
  return {
    recognize: (identity) => directory.recognize(identity),
    person: (id) => directory.person(id),
    withRoles: (roles) => directory.withRoles?.(roles) ?? [],
    ...method,
  };
}

/** A run started by Alice under the on-call rule, Bob approving, judged by `directory`. */
async function bobApproves(directory: ApproverDirectory) {
  const approver = new PeopleApprover([approvedBy(by.bob)]);
  const captured = capturingLogger();
  const made = deletionAgent({
    approver,
    logger: captured.logger,
    approverDirectory: directory,
    approvalPolicy: { rules: [oncall] },
  });
  const result = await made.agent.run("tidy the callbacks", { startedBy: "alice" });
  const approval = result.steps[0]?.toolCalls[0]?.approval;
  const audited = captured.lines.filter((line) => line.audit === "approval");
  return { ...made, approver, result, approval, audited };
}

describe("a directory of your own that gives a person who is not whole fails closed", () => {
  for (const { what, person, field } of malformed) {
    it(`recognize gives Bob ${what}: his approval is refused approver_error and nothing runs`, async () => {
      const directory = directoryWith({
        recognize: (identity) =>
          identity.id === by.bob.id ? (person as ApproverPerson) : undefined,
      });
      const { approval, deleted, decided, audited, approver, result } =
        await bobApproves(directory);
      expect(approver.asked).toHaveLength(1);
      expect(deleted).toEqual([]);
      expect(result.status).toBe("completed");
      expect(approval).toMatchObject({ outcome: "refused", code: "approver_error" });
      const reason = (approval as { reason: string }).reason;
      expect(reason).toMatch(/^the approver directory's recognize\(identity\)\./);
      expect(reason).toMatch(field);
      expect(reason).toMatch(howToFix);
      expect(reason).toMatch(/, so the answer counts for nothing$/);
      expect(reason).not.toContain("TypeError");
      expect(decided).toMatchObject([{ outcome: "refused", code: "approver_error" }]);
      expect(audited).toMatchObject([{ outcome: "refused", code: "approver_error" }]);
    });

    it(`withRoles lists Bob ${what}: the whole list is an approver_error, nobody is asked and nothing runs`, async () => {
      const directory = directoryWith({
        withRoles: async () => [
          (await testDirectory().person("alice")) as ApproverPerson,
          person as ApproverPerson,
        ],
      });
      const { approval, deleted, decided, approver, model } = await bobApproves(directory);
      expect(approver.asked).toEqual([]);
      expect(deleted).toEqual([]);
      expect(approval).toMatchObject({ outcome: "refused", code: "approver_error" });
      const reason = (approval as { reason: string }).reason;
      expect(reason).toMatch(/^the approver directory's withRoles\(roles\)\[1\]\./);
      expect(reason).toMatch(field);
      expect(reason).toMatch(howToFix);
      expect(reason).toMatch(/, so nobody was asked and nothing ran$/);
      expect(decided).toMatchObject([{ outcome: "refused", code: "approver_error" }]);
      // The model is told the call was refused, and the run goes on.
      expect(model.requests).toHaveLength(2);
    });

    it(`person gives the starter ${what}: the run fails at its start with a ConfigurationError`, async () => {
      const directory = directoryWith({ person: () => person as ApproverPerson });
      const { agent, deleted, model } = deletionAgent({
        approver: new PeopleApprover([approvedBy(by.alice)]),
        approverDirectory: directory,
        approvalPolicy: { rules: [oncall] },
      });
      const result = await agent.run("tidy", { startedBy: "bob" });
      expect(result.status).toBe("failed");
      expect(result.error).toBeInstanceOf(ConfigurationError);
      const message = result.error?.message ?? "";
      expect(message).toMatch(/the approver directory's person\(id\)\./);
      expect(message).toMatch(field);
      expect(message).toMatch(howToFix);
      expect(message).toMatch(/the run was not started/);
      expect(model.requests).toHaveLength(0);
      expect(deleted).toEqual([]);
    });
  }

  it("recognize giving the starter's identity a person who is not whole fails the run at its start", async () => {
    const directory = directoryWith({
      recognize: () => ({ id: "alice", roles: ["oncall"] }) as unknown as ApproverPerson,
    });
    const { agent, deleted, model } = deletionAgent({
      approver: new PeopleApprover([approvedBy(by.bob)]),
      approverDirectory: directory,
      approvalPolicy: { rules: [oncall] },
    });
    const result = await agent.run("tidy", { startedBy: by.aliceAtTerminal });
    expect(result.status).toBe("failed");
    expect(result.error).toBeInstanceOf(ConfigurationError);
    expect(result.error?.message).toMatch(
      /the approver directory's recognize\(identity\)\.name must be .*; the approver directory's recognize\(identity\)\.identities must be an object/,
    );
    expect(model.requests).toHaveLength(0);
    expect(deleted).toEqual([]);
  });

  it("the error names fields, never their values, and stays short", async () => {
    const secret = `sk_live_${"9".repeat(40)}`;
    const wrong = {
      id: "bob",
      name: `${secret}${"x".repeat(5_000)}`,
      roles: ["oncall"],
      identities: Object.fromEntries(
        Array.from({ length: 50 }, (_, index) => [`pager${index}`, [secret]]),
      ),
    };
    const directory = directoryWith({
      recognize: (identity) =>
        identity.id === by.bob.id ? (wrong as unknown as ApproverPerson) : undefined,
    });
    const { approval, deleted } = await bobApproves(directory);
    expect(deleted).toEqual([]);
    expect(approval).toMatchObject({ outcome: "refused", code: "approver_error" });
    const reason = (approval as { reason: string }).reason;
    expect(reason).not.toContain(secret);
    expect(reason).toMatch(/recognize\(identity\)\.name must be/);
    expect(reason).toMatch(/; and 46 more \(a directory/);
    expect(reason.length).toBeLessThan(1_200);
  });

  it("a withRoles that gives no list is an approver_error too; undefined and null from recognize are nobody", async () => {
    const notAList = directoryWith({
      withRoles: () => ({ people: [] }) as unknown as ApproverPerson[],
    });
    const listed = await bobApproves(notAList);
    expect(listed.approver.asked).toEqual([]);
    expect(listed.approval).toMatchObject({
      code: "approver_error",
      reason: expect.stringMatching(/withRoles\(roles\) must give a list of people/),
    });
    for (const nobody of [undefined, null]) {
      const directory = directoryWith({
        recognize: () => nobody as unknown as ApproverPerson | undefined,
      });
      const { approval, deleted } = await bobApproves(directory);
      expect(deleted).toEqual([]);
      expect(approval).toMatchObject({ code: "approver_not_allowed" });
    }
  });
});
