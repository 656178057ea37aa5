import { createHash, generateKeyPairSync } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import type { RunReport } from "switchyard-agents/cli";
import { type Simulators, startSimulators } from "switchyard-agents/simulators";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalAuditRecord } from "../../src/agent/approval/approval-audit-record.js";
import type { AuditLogHead } from "../../src/agent/approval/audit-log.js";
import { runCli } from "../../src/cli/run-cli.js";
import { entryStatement, headStatement } from "../../src/stores/audit-chain.js";
import { signText } from "../../src/stores/audit-signing.js";
import { auditLogExists, JsonlAuditLog } from "../../src/stores/jsonl-audit-log.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";
import { createTestIo } from "./cli-test-io.js";
import { simulatorVariables } from "./simulator-variables.js";
import { finished, spawnScript } from "./spawn-switchyard.js";

let simulators: Simulators;
const directories: string[] = [];

beforeAll(async () => {
  simulators = await startSimulators({
    reasoner: { scenario: "callback-cleanup" },
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
});

async function environment(): Promise<Record<string, string>> {
  const directory = await mkdtemp(join(tmpdir(), "switchyard-audit-cli-"));
  directories.push(directory);
  return {
    ...simulatorVariables(simulators),
    SWITCHYARD_STATE_DIR: directory,
  };
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

/** `run --no-wait`: the run's id and the interaction its question went out on. */
async function suspendedRun(env: Record<string, string>) {
  const started = await switchyard(["run", "callback-cleanup", "--no-wait", "--json"], env);
  expect(started.code).toBe(0);
  const report = JSON.parse(started.stdout) as RunReport;
  return { runId: report.runId!, interactionId: report.approvals[0]!.interactionId! };
}

describe("switchyard audit: who decided, provably, on the command line", () => {
  it("a denial with a note is recorded, shown by run id, verified, and never runs after a resume", async () => {
    const env = await environment();
    const { runId, interactionId } = await suspendedRun(env);
    simulators.messaging.answerInteraction(interactionId, "deny", "use the new warehouse host");
    const resumed = await switchyard(["resume", runId, "--json"], env);
    expect(resumed.code).toBe(0);
    expect(deletionsReceived()).toHaveLength(0);

    const shown = await switchyard(["audit", "show", runId, "--json"], env);
    expect(shown.code).toBe(0);
    const { records, intact } = JSON.parse(shown.stdout) as {
      records: ApprovalAuditRecord[];
      intact: boolean;
    };
    expect(intact).toBe(true);
    expect(records).toEqual([
      expect.objectContaining({
        runId,
        action: "delete_callbacks",
        outcome: "refused",
        decidedBy: "person",
        code: "denied",
        note: "use the new warehouse host",
        interactionId,
        approverLink: simulators.messaging.approverLinkId,
        questionDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        fingerprint: expect.stringMatching(/^sha256:/),
      }),
    ]);
    const text = await switchyard(["audit", "show", runId], env);
    expect(text.stdout).toContain("refused (denied)  by person via link");
    expect(text.stdout).toContain('note "use the new warehouse host"');

    const file = join(env.SWITCHYARD_STATE_DIR!, "audit.jsonl");
    const verified = await switchyard(["audit", "verify", file], env);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(
      /^intact \(unkeyed\): 1 decision\(s\), chained by plain SHA-256 hashes\. This shows accidental damage, not forgery/,
    );

    // Someone turns the denial into an approval: verify says so, and nothing runs.
    const saved = await readFile(file, "utf8");
    await writeFile(file, saved.replace('"outcome":"refused"', '"outcome":"approved"'));
    const altered = await switchyard(["audit", "verify", file], env);
    expect(altered.code).toBe(1);
    expect(altered.stdout).toContain("ALTERED");
    expect(altered.stdout).toContain("entry 1: its content does not match its hash");
    const again = await switchyard(["resume", runId], env);
    expect(again.code).toBe(2);
    expect(deletionsReceived()).toHaveLength(0);
  });

  it("an expired question is recorded as expired, never as a denial", async () => {
    const env = await environment();
    const { runId, interactionId } = await suspendedRun(env);
    simulators.messaging.expireInteraction(interactionId);
    const resumed = await switchyard(["resume", runId, "--json"], env);
    const report = JSON.parse(resumed.stdout) as RunReport;
    expect(report.approvals).toEqual([
      expect.objectContaining({ outcome: "expired", interactionId }),
    ]);
    expect(report.approvals[0]).not.toHaveProperty("code");
    expect(deletionsReceived()).toHaveLength(0);

    const shown = await switchyard(["audit", "show", runId, "--json"], env);
    const { records } = JSON.parse(shown.stdout) as { records: ApprovalAuditRecord[] };
    expect(records).toEqual([
      expect.objectContaining({ outcome: "expired", decidedBy: "expiry", interactionId }),
    ]);
    expect(records[0]).not.toHaveProperty("code");
  });

  it("says what it takes when used wrongly, and exits 1 for a run with no decisions", async () => {
    const env = await environment();
    const wrong = await switchyard(["audit", "check", "x"], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      "switchyard audit takes verify [<file>], show <run-id>, export [<run-id>] or keygen [<file>]",
    );
    const none = await switchyard(["audit", "show", "run_unknown"], env);
    expect(none.code).toBe(1);
    const missing = await switchyard(
      ["audit", "verify", join(env.SWITCHYARD_STATE_DIR!, "none.jsonl")],
      env,
    );
    expect(missing.code).toBe(2);
    expect(missing.stdout).not.toContain("ALTERED");
    expect(missing.stderr).toContain(
      `there is no audit log at ${join(env.SWITCHYARD_STATE_DIR!, "none.jsonl")}`,
    );
  });

  it("with SWITCHYARD_AUDIT_KEY the chain is keyed: verify needs the key, and a cut is caught", async () => {
    const env: Record<string, string> = {
      ...(await environment()),
      SWITCHYARD_AUDIT_KEY: "f".repeat(64),
    };
    const { runId, interactionId } = await suspendedRun(env);
    simulators.messaging.answerInteraction(interactionId, "deny", "not today");
    expect((await switchyard(["resume", runId, "--json"], env)).code).toBe(0);
    const file = join(env.SWITCHYARD_STATE_DIR!, "audit.jsonl");
    const verified = await switchyard(["audit", "verify", file], env);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^intact \(keyed\): 1 decision\(s\)/);
    const { SWITCHYARD_AUDIT_KEY: _key, ...keyless } = env;
    const withoutKey = await switchyard(["audit", "verify", file], keyless);
    expect(withoutKey.code).toBe(2);
    expect(withoutKey.stderr).toContain("needs its key");

    await writeFile(file, "");
    const cut = await switchyard(["audit", "verify", file, "--json"], env);
    expect(cut.code).toBe(1);
    expect(JSON.parse(cut.stdout)).toMatchObject({ intact: false, entries: 0 });
    // Removed whole, its head says it was there.
    await rm(file);
    const removed = await switchyard(["audit", "verify", file], env);
    expect(removed.code).toBe(1);
    expect(removed.stdout).toContain(`ALTERED: ${file}`);
  });

  it("show escapes every value of a record and refuses a record of an unknown shape", async () => {
    const env = await environment();
    const file = join(env.SWITCHYARD_STATE_DIR!, "audit.jsonl");
    const log = new JsonlAuditLog({ path: file });
    const base: ApprovalAuditRecord = {
      action: "delete_callbacks",
      toolCallId: "call_1",
      runId: "run_forged",
      fingerprint: "sha256:1",
      outcome: "approved",
      decidedBy: "standing",
      coveredBy: { approvalId: "int\u001b[2J\nAPPROVED", use: 1, maxCalls: 2, scope: "s" },
      standing: {
        rule: "r\u001b[31m",
        toolName: "delete_callbacks",
        maxCalls: 2,
        until: "2026\n\u001b[2K",
        fingerprint: "sha256:2",
      },
      requestedAt: "2026-01-01T00:00:00.000Z",
      decidedAt: "2026-01-01T00:00:01.000Z",
    };
    await log.append(base);
    const shown = await switchyard(["audit", "show", "run_forged"], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("int\\x1b[2J\\nAPPROVED");
    expect(shown.stdout).not.toContain("\u001b");
    expect(shown.stdout.trimEnd().split("\n")).toHaveLength(1);

    // A line someone wrote by hand, of a shape Switchyard never writes (decidedBy holds escapes).
    await log.append({ ...base, decidedBy: "\u001b[2Jperson" as never });
    const forged = await switchyard(["audit", "show", "run_forged"], env);
    expect(forged.code).toBe(1);
    expect(forged.stdout).toBe("");
    expect(forged.stderr).toContain("line 2: not an audit entry of a known shape");
    expect(forged.stderr).not.toContain("\u001b");
  });

  it("a foreground run prints its id first, and its decisions carry it", async () => {
    const directory = await mkdtemp(join(tmpdir(), "switchyard-audit-cli-"));
    directories.push(directory);
    const env = {
      ...simulatorVariables(simulators, ["reasoner", "orders"]),
      SWITCHYARD_STATE_DIR: directory,
    };
    const ran = await switchyard(["run", "callback-cleanup", "--approve", "deny", "--json"], env);
    expect(ran.code).toBe(0);
    const runId = /^run id: (\S+)$/m.exec(ran.stderr)?.[1];
    expect(runId).toMatch(/^run_/);
    expect(ran.stderr.split("\n")[1]).toBe(`run id: ${runId}`);
    expect((JSON.parse(ran.stdout) as RunReport).runId).toBe(runId);

    const shown = await switchyard(["audit", "show", runId!, "--json"], env);
    expect(shown.code).toBe(0);
    const { records } = JSON.parse(shown.stdout) as { records: ApprovalAuditRecord[] };
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) {
      expect(record).toMatchObject({ runId, outcome: "refused", code: "denied" });
    }
  });

  it("with SWITCHYARD_DATABASE_URL the runs' audit log is the database's, which show and verify read", async () => {
    const directory = await mkdtemp(join(tmpdir(), "switchyard-audit-cli-"));
    directories.push(directory);
    const schema = uniqueSchema("audit_cli");
    const env = {
      ...simulatorVariables(simulators, ["reasoner", "orders"]),
      SWITCHYARD_STATE_DIR: directory,
      SWITCHYARD_DATABASE_URL: testDatabaseUrl(),
      SWITCHYARD_DATABASE_SCHEMA: schema,
      SWITCHYARD_AUDIT_KEY: "d".repeat(64),
    };
    try {
      const ran = await switchyard(["run", "callback-cleanup", "--approve", "deny"], env);
      expect(ran.code).toBe(0);
      const runId = /^run id: (\S+)$/m.exec(ran.stderr)?.[1];
      const shown = await switchyard(["audit", "show", runId!, "--json"], env);
      expect(shown.code).toBe(0);
      const shownReport = JSON.parse(shown.stdout) as { records: ApprovalAuditRecord[] };
      expect(shownReport.records[0]).toMatchObject({ runId, outcome: "refused" });
      const verified = await switchyard(["audit", "verify"], env);
      expect(verified.code).toBe(0);
      expect(verified.stdout).toMatch(/^intact \(keyed\)/);
      // The file is not where the decisions went.
      expect(await auditLogExists(join(directory, "audit.jsonl"))).toBe(false);
    } finally {
      const admin = new pg.Client({ connectionString: testDatabaseUrl() });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });

  it("with SWITCHYARD_DATABASE_URL, run --no-wait and resume append to the run store's audit log and leave no connection open", async () => {
    const directory = await mkdtemp(join(tmpdir(), "switchyard-audit-cli-"));
    directories.push(directory);
    const schema = uniqueSchema("audit_pool");
    // Every connection the commands open carries this name, so the server can count them.
    const url = new URL(testDatabaseUrl());
    url.searchParams.set("application_name", schema);
    const env = {
      ...simulatorVariables(simulators),
      SWITCHYARD_STATE_DIR: directory,
      SWITCHYARD_DATABASE_URL: url.href,
      SWITCHYARD_DATABASE_SCHEMA: schema,
      SWITCHYARD_AUDIT_KEY: "e".repeat(64),
    };
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    const countConnections = async () => {
      const { rows } = await admin.query<{ count: string }>(
        "SELECT count(*) AS count FROM pg_stat_activity WHERE application_name = $1",
        [schema],
      );
      return Number(rows[0]!.count);
    };
    // A connection its pool ended leaves pg_stat_activity once its server process exits, which
    // a loaded machine may delay a little; one left open stays there (a pool keeps an idle
    // connection 10 s), so the count is read until it is 0 or 3 s have passed.
    const openConnections = async () => {
      const until = Date.now() + 3_000;
      let count = await countConnections();
      while (count > 0 && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        count = await countConnections();
      }
      return count;
    };
    try {
      const { runId, interactionId } = await suspendedRun(env);
      expect(await openConnections()).toBe(0);
      simulators.messaging.answerInteraction(interactionId, "deny", "not today");
      const resumed = await switchyard(["resume", runId, "--json"], env);
      expect(resumed.code).toBe(0);
      // The decision went through the store's pool, which the command ended: nothing is left open.
      expect(await openConnections()).toBe(0);
      const shown = await switchyard(["audit", "show", runId, "--json"], env);
      expect(shown.code).toBe(0);
      const report = JSON.parse(shown.stdout) as {
        intact: boolean;
        records: ApprovalAuditRecord[];
      };
      expect(report.intact).toBe(true);
      expect(report.records).toEqual([
        expect.objectContaining({ runId, outcome: "refused", note: "not today" }),
      ]);
      expect(await openConnections()).toBe(0);
      expect(await auditLogExists(join(directory, "audit.jsonl"))).toBe(false);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });

  it("show reads a log it cannot verify, and says why: keyed without the key, or altered", async () => {
    const env = await environment();
    const file = join(env.SWITCHYARD_STATE_DIR!, "audit.jsonl");
    const decidedAt = new Date().toISOString();
    const record = (runId: string, toolCallId: string): ApprovalAuditRecord => ({
      action: "delete_callbacks",
      toolCallId,
      runId,
      fingerprint: "sha256:shown",
      outcome: "refused",
      requestedAt: decidedAt,
      decidedAt,
    });
    const log = new JsonlAuditLog({ path: file, auditKey: "f".repeat(64) });
    await log.append(record("run_shown", "call-1"));
    await log.append(record("run_other", "call-2"));
    await log.append(record("run_shown", "call-3"));

    const keyed = await switchyard(["audit", "show", "run_shown", "--json"], env);
    expect(keyed.code).toBe(0);
    expect(keyed.stderr).toContain(
      "is keyed or signed; set SWITCHYARD_AUDIT_KEY, or give --public-key, to check",
    );
    const keyedReport = JSON.parse(keyed.stdout) as {
      intact?: boolean;
      records: ApprovalAuditRecord[];
    };
    expect(keyedReport.intact).toBeUndefined();
    expect(keyedReport.records.map((shown) => shown.toolCallId)).toEqual(["call-1", "call-3"]);

    const withKey = { ...env, SWITCHYARD_AUDIT_KEY: "f".repeat(64) };
    const verified = await switchyard(["audit", "show", "run_shown", "--json"], withKey);
    expect(verified.stderr).toBe("");
    expect(JSON.parse(verified.stdout)).toMatchObject({ intact: true });
    expect(
      (JSON.parse(verified.stdout) as { records: ApprovalAuditRecord[] }).records.map(
        (shown) => shown.toolCallId,
      ),
    ).toEqual(["call-1", "call-3"]);

    const saved = await readFile(file, "utf8");
    await writeFile(file, saved.replace('"toolCallId":"call-3"', '"toolCallId":"call-9"'));
    const altered = await switchyard(["audit", "show", "run_shown", "--json"], withKey);
    expect(altered.code).toBe(0);
    expect(altered.stderr).toContain("does not verify (1 problem(s)); run switchyard audit verify");
    const alteredReport = JSON.parse(altered.stdout) as {
      intact: boolean;
      records: ApprovalAuditRecord[];
    };
    expect(alteredReport.intact).toBe(false);
    expect(alteredReport.records.map((shown) => shown.toolCallId)).toEqual(["call-1", "call-9"]);
  });

  it("a SWITCHYARD_AUDIT_KEY too short to be safe is a usage error, before anything runs", async () => {
    const env = { ...(await environment()), SWITCHYARD_AUDIT_KEY: "short-key" };
    for (const argv of [
      ["audit", "verify"],
      ["run", "callback-cleanup", "--no-wait"],
    ]) {
      const refused = await switchyard(argv, env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        "SWITCHYARD_AUDIT_KEY holds 9 characters; it needs at least 32",
      );
      expect(refused.stderr).not.toContain("short-key");
    }
    expect(simulators.messaging.interactions()).toHaveLength(0);
  });
});

describe("switchyard audit: a signed trail anyone can check, and what an attacker cannot hide", () => {
  /** A state directory with a key pair made by `audit keygen`, and the environment a run signs with. */
  async function signingEnvironment() {
    const directory = await mkdtemp(join(tmpdir(), "switchyard-audit-signed-"));
    directories.push(directory);
    const privateKeyFile = join(directory, "audit-signing-key.pem");
    const made = await switchyard(["audit", "keygen", privateKeyFile], {});
    expect(made.code).toBe(0);
    const publicKeyFile = join(directory, "audit-signing-key.pub.pem");
    const base = {
      ...simulatorVariables(simulators, ["reasoner", "orders"]),
      SWITCHYARD_STATE_DIR: directory,
    };
    return {
      directory,
      publicKeyFile,
      file: join(directory, "audit.jsonl"),
      /** What the runs get: the private key. */
      writer: { ...base, SWITCHYARD_AUDIT_SIGNING_KEY: await readFile(privateKeyFile, "utf8") },
      /** What an auditor has: no secret at all. */
      auditor: base,
    };
  }

  /** One foreground run whose approval is denied at once: its decision is appended. */
  async function decide(env: Record<string, string>): Promise<string> {
    const ran = await switchyard(["run", "callback-cleanup", "--approve", "deny"], env);
    expect(ran.code).toBe(0);
    return /^run id: (\S+)$/m.exec(ran.stderr)![1]!;
  }

  const lines = async (file: string) => (await readFile(file, "utf8")).trimEnd().split("\n");

  it("keygen makes a key pair it never overwrites; a signed trail verifies with the public key and no secret", async () => {
    const trail = await signingEnvironment();
    expect((await stat(join(trail.directory, "audit-signing-key.pem"))).mode & 0o777).toBe(0o600);
    const again = await switchyard(
      ["audit", "keygen", join(trail.directory, "audit-signing-key.pem")],
      {},
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already exists; it is never overwritten");
    expect(again.stderr).not.toContain("PRIVATE KEY");

    await decide(trail.writer);
    await decide(trail.writer);
    const verified = await switchyard(
      ["audit", "verify", trail.file, "--public-key", trail.publicKeyFile],
      trail.auditor,
    );
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^intact \(signed\): \d+ decision\(s\)/);
    const withoutKey = await switchyard(["audit", "verify", trail.file], trail.auditor);
    expect(withoutKey.code).toBe(2);
    expect(withoutKey.stderr).toContain("needs its public key (--public-key FILE");
    const notAKey = await switchyard(
      ["audit", "verify", trail.file, "--public-key", trail.file],
      trail.auditor,
    );
    expect(notAKey.code).toBe(2);
    expect(notAKey.stderr).toContain("is not an Ed25519 public key");
    const badSigningKey = await switchyard(["audit", "verify", trail.file], {
      ...trail.auditor,
      SWITCHYARD_AUDIT_SIGNING_KEY: "not a key",
    });
    expect(badSigningKey.code).toBe(2);
    expect(badSigningKey.stderr).toContain(
      "SWITCHYARD_AUDIT_SIGNING_KEY is not an Ed25519 private key",
    );
  });

  it("truncated, emptied with and without its head, reordered, spliced and re-signed: each ALTERED with only the public key", async () => {
    const trail = await signingEnvironment();
    const other = await signingEnvironment();
    for (let run = 0; run < 3; run++) await decide(trail.writer);
    await decide(other.writer);
    const original = await lines(trail.file);
    const originalHead = await readFile(`${trail.file}.head`, "utf8");
    expect(original.length).toBeGreaterThanOrEqual(3);
    const verify = () =>
      switchyard(
        ["audit", "verify", trail.file, "--public-key", trail.publicKeyFile, "--json"],
        trail.auditor,
      );
    const restore = async () => {
      await writeFile(trail.file, `${original.join("\n")}\n`);
      await writeFile(`${trail.file}.head`, originalHead);
    };
    const attacks: Array<[string, () => Promise<void>, RegExp]> = [
      [
        "truncated",
        () => writeFile(trail.file, `${original.slice(0, -1).join("\n")}\n`),
        /head says/,
      ],
      ["emptied", () => writeFile(trail.file, ""), /head says \d+ entries/],
      [
        "emptied without its head",
        async () => {
          await writeFile(trail.file, "");
          await rm(`${trail.file}.head`);
        },
        /no entries and no head/,
      ],
      [
        "reordered",
        () =>
          writeFile(trail.file, `${[original[1], original[0], ...original.slice(2)].join("\n")}\n`),
        /numbered 2, expected 1/,
      ],
      [
        "spliced from another trail",
        async () => {
          const [theirs] = await lines(other.file);
          await writeFile(
            trail.file,
            `${[original[0], theirs, ...original.slice(2)].join("\n")}\n`,
          );
        },
        /does not follow the entry before|signature does not verify/,
      ],
      [
        "re-signed with another key",
        async () => {
          const attacker = generateKeyPairSync("ed25519").privateKey;
          const forged = original.map((text) => {
            const entry = JSON.parse(text) as {
              seq: number;
              prev: string;
              hash: string;
              record: ApprovalAuditRecord;
            };
            return JSON.stringify({
              ...entry,
              signature: signText(entryStatement(entry), attacker),
            });
          });
          await writeFile(trail.file, `${forged.join("\n")}\n`);
          const head = JSON.parse(originalHead) as AuditLogHead;
          await writeFile(
            `${trail.file}.head`,
            JSON.stringify({ ...head, signature: signText(headStatement(head), attacker) }),
          );
        },
        /signature does not verify under this public key/,
      ],
    ];
    for (const [name, attack, problem] of attacks) {
      await attack();
      const result = await verify();
      expect(result.code, name).toBe(1);
      const report = JSON.parse(result.stdout) as { intact: boolean; problems: string[] };
      expect(report.intact, name).toBe(false);
      expect(report.problems.join("\n"), name).toMatch(problem);
      await restore();
      expect((await verify()).code, `${name}, restored`).toBe(0);
    }
  });

  it("with SWITCHYARD_AUDIT_KEY, a log emptied and its head deleted is ALTERED, and the next run does not start a chain that verifies", async () => {
    const directory = await mkdtemp(join(tmpdir(), "switchyard-audit-cli-"));
    directories.push(directory);
    const env = {
      ...simulatorVariables(simulators, ["reasoner", "orders"]),
      SWITCHYARD_STATE_DIR: directory,
      SWITCHYARD_AUDIT_KEY: "c".repeat(64),
    };
    const file = join(directory, "audit.jsonl");
    const decided = await switchyard(["run", "callback-cleanup", "--approve", "deny"], env);
    expect(decided.code).toBe(0);
    expect((await switchyard(["audit", "verify", file], env)).stdout).toMatch(/^intact \(keyed\)/);
    await writeFile(file, "");
    await rm(`${file}.head`);
    const emptied = await switchyard(["audit", "verify", file], env);
    expect(emptied.code).toBe(1);
    expect(emptied.stdout).toContain(`ALTERED: ${file}`);
    expect(emptied.stdout).toContain("no entries and no head");
    // The next run's writer sees a trail that was begun and emptied, and refuses to chain onto it.
    await switchyard(["run", "callback-cleanup", "--approve", "deny"], env);
    expect(await readFile(file, "utf8")).toBe("");
    expect(await auditLogExists(`${file}.head`)).toBe(false);
    const after = await switchyard(["audit", "verify", file], env);
    expect(after.code).toBe(1);
    expect(after.stdout).toContain("no entries and no head");
  });

  it("export writes a run's signed records into a bundle that verifies offline, and fails when a record is altered", async () => {
    const trail = await signingEnvironment();
    const first = await decide(trail.writer);
    const second = await decide(trail.writer);
    const bundleFile = join(trail.directory, "run.audit.json");
    const exported = await switchyard(
      [
        "audit",
        "export",
        second,
        "--file",
        trail.file,
        "--public-key",
        trail.publicKeyFile,
        "--out",
        bundleFile,
      ],
      trail.auditor,
    );
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/^exported \d+ record\(s\) of run/);
    const bundle = JSON.parse(await readFile(bundleFile, "utf8")) as {
      entries: Array<{ record?: ApprovalAuditRecord; runId?: string }>;
    };
    // The other run's entries are links: their records are not in the bundle.
    expect(
      bundle.entries
        .filter((entry) => entry.record !== undefined)
        .every((entry) => entry.record?.runId === second),
    ).toBe(true);
    expect(bundle.entries.some((entry) => entry.runId === first)).toBe(true);

    // Offline: no key variable, no log, no state directory; only the bundle and the public key.
    const offline = { PATH: process.env.PATH ?? "" };
    const verified = await switchyard(
      ["audit", "verify", bundleFile, "--public-key", trail.publicKeyFile],
      offline,
    );
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^intact \(signed bundle\): \d+ record\(s\) of run/);

    const text = await readFile(bundleFile, "utf8");
    await writeFile(bundleFile, text.replace('"outcome": "refused"', '"outcome": "approved"'));
    const altered = await switchyard(
      ["audit", "verify", bundleFile, "--public-key", trail.publicKeyFile],
      offline,
    );
    expect(altered.code).toBe(1);
    expect(altered.stdout).toContain(`ALTERED: ${bundleFile}`);
    expect(altered.stdout).toContain("does not match its hash");

    await writeFile(bundleFile, text);
    const other = await signingEnvironment();
    const wrongKey = await switchyard(
      ["audit", "verify", bundleFile, "--public-key", other.publicKeyFile],
      offline,
    );
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stdout).toContain("signed with another key");
  });

  it("a bundle forged and signed with someone else's key is never reported intact without --public-key", async () => {
    // Anyone can write a trail of their own with a key of their own and export it.
    const forger = generateKeyPairSync("ed25519");
    const directory = await mkdtemp(join(tmpdir(), "switchyard-forged-"));
    const log = new JsonlAuditLog({
      path: join(directory, "forged.jsonl"),
      auditSigningKey: forger.privateKey,
    });
    await log.append({
      action: "delete_callbacks",
      toolCallId: "call_forged",
      runId: "run_forged",
      fingerprint: `sha256:${"0".repeat(64)}`,
      outcome: "approved",
      decidedBy: "person",
      requestedAt: "2026-01-01T00:00:00.000Z",
      decidedAt: "2026-01-01T00:00:01.000Z",
    });
    const bundleFile = join(directory, "forged.audit.json");
    await writeFile(bundleFile, JSON.stringify(await log.exportBundle({ runId: "run_forged" })));
    const fingerprint = `sha256:${createHash("sha256")
      .update(forger.publicKey.export({ type: "spki", format: "der" }))
      .digest("hex")}`;
    const unpinned = await switchyard(["audit", "verify", bundleFile], {
      PATH: process.env.PATH ?? "",
    });
    expect(unpinned.code).toBe(1);
    expect(unpinned.stdout).not.toContain("intact");
    expect(unpinned.stdout).toContain(`signed by an unverified key ${fingerprint}`);
    expect(unpinned.stdout).toContain("--public-key");
    const json = await switchyard(["audit", "verify", bundleFile, "--json"], {
      PATH: process.env.PATH ?? "",
    });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      intact: false,
      consistent: true,
      unverifiedKey: fingerprint,
    });
  });

  it("a worker whose signing key did not write the trail stops at its start, as a run does", async () => {
    const trail = await signingEnvironment();
    await decide(trail.writer);
    const other = await signingEnvironment();
    const worker = await switchyard(["worker", "--poll-interval", "20ms"], {
      ...trail.writer,
      SWITCHYARD_AUDIT_SIGNING_KEY: other.writer.SWITCHYARD_AUDIT_SIGNING_KEY,
    });
    // Going on, it would spend every approval it took as a refusal (the decision not recorded).
    expect(worker.code).not.toBe(0);
    expect(worker.stderr).toContain("could not be begun");
    expect(worker.stderr).not.toContain("resuming due runs");
  });

  it("in PostgreSQL: a worker begins a fresh signed trail when it starts, which then verifies empty", async () => {
    const trail = await signingEnvironment();
    const database = {
      SWITCHYARD_DATABASE_URL: testDatabaseUrl(),
      SWITCHYARD_DATABASE_SCHEMA: uniqueSchema("audit_fresh_worker"),
    };
    const worker = spawnScript("src/cli/main.ts", ["worker", "--poll-interval", "20ms"], {
      ...trail.writer,
      ...database,
    });
    const done = finished(worker);
    await new Promise<void>((resolve) => {
      createInterface({ input: worker.stderr! }).on("line", (line) => {
        if (line.includes("resuming due runs")) resolve();
      });
    });
    worker.kill("SIGTERM");
    const { stderr } = await done;
    const verified = await switchyard(["audit", "verify", "--public-key", trail.publicKeyFile], {
      ...trail.auditor,
      ...database,
    });
    expect(verified.stdout, stderr).toMatch(/^intact: no decisions yet/);
  }, 60_000);

  it("in PostgreSQL: a worker with a signed trail whose database it cannot reach yet keeps trying, as it does without one", async () => {
    const trail = await signingEnvironment();
    const wrong = new URL(testDatabaseUrl());
    wrong.password = "not-the-password";
    const worker = spawnScript("src/cli/main.ts", ["worker", "--poll-interval", "20ms"], {
      ...trail.writer,
      SWITCHYARD_DATABASE_URL: wrong.href,
      SWITCHYARD_DATABASE_SCHEMA: uniqueSchema("audit_unreached_worker"),
    });
    const done = finished(worker);
    await new Promise<void>((resolve) => {
      createInterface({ input: worker.stderr! }).on("line", (line) => {
        if (line.includes("could not take a due run")) resolve();
      });
      // Stopped at its start instead: nothing to wait for.
      done.then(() => resolve());
    });
    worker.kill("SIGTERM");
    const { code, stderr } = await done;
    expect(stderr).toContain("could not be begun");
    expect(stderr).toContain("the first decision tries again");
    expect(stderr).toContain("resuming due runs");
    expect(stderr).not.toContain("not-the-password");
    expect(stderr).toContain("stopped without ever reaching");
    expect(code).toBe(1);
  }, 60_000);

  it("in PostgreSQL: a run begins a fresh signed trail, which verifies empty before any decision is written", async () => {
    const trail = await signingEnvironment();
    const database = {
      SWITCHYARD_DATABASE_URL: testDatabaseUrl(),
      SWITCHYARD_DATABASE_SCHEMA: uniqueSchema("audit_fresh_cli"),
    };
    // The orders service cannot be reached: the run stops before any decision.
    const ran = await switchyard(["run", "callback-cleanup", "--approve", "deny"], {
      ...trail.writer,
      ...database,
      SWITCHYARD_ORDERS_URL: simulators.orders.url.replace(/:\d+\//, ":9/"),
    });
    expect(ran.code, ran.stderr).not.toBe(0);
    const verified = await switchyard(["audit", "verify", "--public-key", trail.publicKeyFile], {
      ...trail.auditor,
      ...database,
    });
    expect(verified.stdout, ran.stderr).not.toContain("ALTERED");
    expect(verified.stdout).toMatch(/^intact: no decisions yet/);
    expect(verified.code).toBe(0);
  });

  it("in PostgreSQL: a signed trail emptied with its head is ALTERED, and a chain begun again is caught by the anchored head", async () => {
    const trail = await signingEnvironment();
    const schema = uniqueSchema("audit_signed_cli");
    const anchors = join(trail.directory, "anchors.jsonl");
    const database = {
      SWITCHYARD_DATABASE_URL: testDatabaseUrl(),
      SWITCHYARD_DATABASE_SCHEMA: schema,
    };
    const writer = { ...trail.writer, ...database, SWITCHYARD_AUDIT_ANCHOR: `cat >> '${anchors}'` };
    const auditor = { ...trail.auditor, ...database };
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    const verify = (...extra: string[]) =>
      switchyard(["audit", "verify", "--public-key", trail.publicKeyFile, ...extra], auditor);
    try {
      await decide(writer);
      await decide(writer);
      const verified = await verify();
      expect(verified.code).toBe(0);
      expect(verified.stdout).toMatch(/^intact \(signed\)/);
      expect((await verify("--anchor", anchors)).code).toBe(0);

      await admin.query(`DELETE FROM "${schema}".audit_log`);
      await admin.query(`UPDATE "${schema}".audit_head SET head = NULL`);
      const emptied = await verify();
      expect(emptied.code).toBe(1);
      expect(emptied.stdout).toContain("no entries and no head");

      // The tables now look as a fresh migration left them: the next run begins a new chain.
      const anchoredBefore = (await readFile(anchors, "utf8")).trimEnd().split("\n").at(-1)!;
      const before = join(trail.directory, "anchor-before.json");
      await writeFile(before, anchoredBefore);
      await decide(writer);
      expect((await verify()).code).toBe(0);
      const caught = await verify("--anchor", before);
      expect(caught.code).toBe(1);
      expect(caught.stdout).toMatch(/not the anchored chain/);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });
});
