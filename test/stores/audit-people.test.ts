import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ApprovalAuditLog } from "../../src/agent/approval/approval-audit-record.js";
import { approverDirectory } from "../../src/agent/approval/approver-directory.js";
import type { AuditLog } from "../../src/agent/approval/audit-log.js";
import { runCli } from "../../src/cli/run-cli.js";
import { buildRunShowReport, formatRunShowReport } from "../../src/cli/show-run.js";
import { JsonlAuditLog } from "../../src/stores/jsonl-audit-log.js";
import { PostgresAuditLog } from "../../src/stores/postgres-audit-log.js";
import {
  approvedBy,
  by,
  deletionAgent,
  type PeopleAnswer,
  PeopleApprover,
  testDirectory,
} from "../agent/approval/people-approver.js";
import { createTestIo } from "../cli/cli-test-io.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(
    directories.map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

async function directory(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), "switchyard-audit-people-"));
  directories.push(made);
  return made;
}

const signingKey = () =>
  generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();

/** A run started by Alice under an on-call rule, its decision appended to `auditLog`. */
async function decide(auditLog: ApprovalAuditLog, runId: string, answer: PeopleAnswer) {
  const { agent } = deletionAgent({
    approver: new PeopleApprover([answer]),
    approverDirectory: testDirectory(),
    approvalPolicy: {
      rules: [{ name: "on call", tool: "delete_callbacks", decision: "ask", roles: ["oncall"] }],
    },
    auditLog,
  });
  return agent.run("tidy", { startedBy: "alice", runId });
}

const bob = { id: "bob", name: "Bob Roy", channel: "agUi", evidence: "bob@example.com" };
const carol = { id: "carol", name: "Carol Diaz", channel: "messaging", evidence: "sl_carol" };

/** Bob's approval, Carol's (wrong role) and a stranger's: each record names who answered. */
async function checkTrail(log: AuditLog & ApprovalAuditLog) {
  await decide(log, "run_bob", approvedBy(by.bob));
  await decide(log, "run_carol", approvedBy(by.carol));
  await decide(log, "run_stranger", approvedBy(by.mallory));
  const verified = await log.verify();
  expect(verified.problems).toEqual([]);
  expect(verified.intact).toBe(true);
  const [approved, wrongRole, stranger] = verified.records;
  expect(approved).toMatchObject({ outcome: "approved", people: [bob], answeredBy: by.bob });
  expect(wrongRole).toMatchObject({
    outcome: "refused",
    code: "approver_not_allowed",
    people: [carol],
  });
  expect(stranger).toMatchObject({ code: "approver_not_allowed", answeredBy: by.mallory });
  expect(stranger).not.toHaveProperty("people");
}

describe("the audit trail names each person who answered", () => {
  it("JSONL, signed: the records hold people and verify; a person changed afterwards is caught", async () => {
    const path = join(await directory(), "audit.jsonl");
    await checkTrail(new JsonlAuditLog({ path, auditSigningKey: signingKey() }));
    const text = await readFile(path, "utf8");
    await writeFile(
      path,
      text.replace('"evidence":"bob@example.com"', '"evidence":"erin@example.com"'),
    );
    const altered = await new JsonlAuditLog({ path, auditSigningKey: signingKey() }).verify();
    expect(altered.intact).toBe(false);
  });

  it("JSONL, keyed with an HMAC key: the records hold people and verify", async () => {
    const path = join(await directory(), "audit.jsonl");
    await checkTrail(new JsonlAuditLog({ path, auditKey: "p".repeat(40) }));
  });

  it("PostgreSQL, signed: the records hold people and verify", async () => {
    const log = new PostgresAuditLog({
      connectionString: testDatabaseUrl(),
      schema: uniqueSchema("audit_people"),
      auditSigningKey: signingKey(),
    });
    try {
      await checkTrail(log);
    } finally {
      await log.close();
    }
  });
});

describe("switchyard audit show lists each decision's people", () => {
  it("by directory id, name, channel and evidence, every value escaped", async () => {
    const state = await directory();
    const log = new JsonlAuditLog({ path: join(state, "audit.jsonl") });
    await decide(log, "run_people", approvedBy(by.bob));
    const hostile = approverDirectory({
      people: [
        {
          id: "eve",
          name: "Eve\u001b[2J\nAPPROVED",
          roles: ["oncall"],
          identities: { agUi: ["eve\u001b[31m@example.com"] },
        },
      ],
    });
    const { agent } = deletionAgent({
      approver: new PeopleApprover([
        approvedBy({ channel: "agUi", id: "eve\u001b[31m@example.com" }),
      ]),
      approverDirectory: hostile,
      auditLog: log,
    });
    await agent.run("tidy", { runId: "run_hostile" });
    await decide(log, "run_forger", approvedBy({ channel: "agUi", id: "x\nAPPROVED by bob" }));

    const show = async (runId: string) => {
      const test = createTestIo({ env: { SWITCHYARD_STATE_DIR: state } });
      const code = await runCli(["audit", "show", runId], test.io);
      return { code, stdout: test.stdout() };
    };
    const shown = await show("run_people");
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('people "bob" "Bob Roy" on agUi as "bob@example.com"');

    const escaped = await show("run_hostile");
    expect(escaped.stdout).toContain(
      'people "eve" "Eve\\x1b[2J\\nAPPROVED" on agUi as "eve\\x1b[31m@example.com"',
    );
    expect(escaped.stdout).not.toContain("\u001b");
    expect(escaped.stdout.trimEnd().split("\n")).toHaveLength(1);

    const forger = await show("run_forger");
    expect(forger.stdout).toContain("approver_not_allowed");
    expect(forger.stdout).toContain('answered on agUi as "x\\nAPPROVED by bob"');
    expect(forger.stdout.trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("switchyard runs show lists each approval's people", () => {
  it("from the run's saved state, escaped", async () => {
    const log = new JsonlAuditLog({ path: join(await directory(), "audit.jsonl") });
    const result = await decide(log, "run_shown", approvedBy(by.bob));
    const report = buildRunShowReport(result.state!, undefined);
    expect(report.approvals[0]?.people).toEqual([bob]);
    expect(formatRunShowReport(report)).toContain(
      '    people "bob" "Bob Roy" on agUi as "bob@example.com"',
    );
    expect(report.startedBy).toBe("alice");
    expect(formatRunShowReport(report)).toContain('started by: "alice"');
  });
});
