import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import type { ApprovalAuditRecord } from "../../src/agent/approval/approval-audit-record.js";
import { JsonlAuditLog, verifyAuditLog } from "../../src/stores/jsonl-audit-log.js";
import { PostgresAuditLog } from "../../src/stores/postgres-audit-log.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(
    directories.map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

async function directory(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), "switchyard-signed-audit-"));
  directories.push(made);
  return made;
}

function keyPair() {
  const pair = generateKeyPairSync("ed25519");
  return {
    privateKey: pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKey: pair.publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

function record(
  index: number,
  runId: string,
  decidedAt = "2026-01-01T00:00:01.000Z",
): ApprovalAuditRecord {
  return {
    action: "delete_callbacks",
    toolCallId: `call_${index}`,
    runId,
    fingerprint: `sha256:${String(index).padStart(64, "0")}`,
    outcome: "refused",
    decidedBy: "person",
    code: "denied",
    requestedAt: "2026-01-01T00:00:00.000Z",
    decidedAt,
  };
}

describe("a signing key is checked, and kept out of errors", () => {
  it("a key that is not an Ed25519 private key is a ConfigurationError that never shows the key", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    expect(() => new JsonlAuditLog({ path: "a.jsonl", auditSigningKey: rsa })).toThrow(
      /auditSigningKey must be an Ed25519 private key, not a rsa key/,
    );
    const { publicKey } = keyPair();
    expect(() => new JsonlAuditLog({ path: "a.jsonl", auditSigningKey: publicKey })).toThrow(
      /PKCS#8 PEM text/,
    );
    try {
      new JsonlAuditLog({ path: "a.jsonl", auditSigningKey: "secret-looking text" });
    } catch (error) {
      expect((error as Error).message).not.toContain("secret-looking");
    }
    const { privateKey } = keyPair();
    expect(() => new JsonlAuditLog({ path: "a.jsonl", publicKey: privateKey })).toThrow(
      /never the private key/,
    );
    // PEM text from an environment variable may carry its line breaks as \n.
    const escaped = privateKey.trimEnd().replaceAll("\n", "\\n");
    expect(() => new JsonlAuditLog({ path: "a.jsonl", auditSigningKey: escaped })).not.toThrow();
  });
});

describe("a PostgreSQL run store checks its signing key first", () => {
  it("a bad auditSigningKey is an error naming the store, before the store touches the pool", async () => {
    const pool = new pg.Pool({ connectionString: testDatabaseUrl() });
    try {
      const errorListeners = pool.listenerCount("error");
      const connectListeners = pool.listenerCount("connect");
      expect(
        () => new PostgresRunStore({ pool, auditSigningKey: "secret-looking text, not a key" }),
      ).toThrow(/PostgresRunStore's auditSigningKey must be an Ed25519 private key/);
      // Nothing of the store was left on the pool it was given.
      expect(pool.listenerCount("error")).toBe(errorListeners);
      expect(pool.listenerCount("connect")).toBe(connectListeners);
    } finally {
      await pool.end();
    }
  });
});

describe("exported bundles hide nothing of their selection", () => {
  it("a run's bundle leaves other runs as links; a record hidden, or a link moved to another run, is caught", async () => {
    const keys = keyPair();
    const path = join(await directory(), "audit.jsonl");
    const log = new JsonlAuditLog({ path, auditSigningKey: keys.privateKey });
    await log.append(record(1, "run_a"));
    await log.append(record(2, "run_b"));
    await log.append(record(3, "run_a"));
    const bundle = await log.exportBundle({ runId: "run_a" });
    expect(JSON.stringify(bundle)).not.toContain("call_2");
    expect(bundle.entries[1]).toMatchObject({ seq: 2, runId: "run_b" });
    const file = join(await directory(), "run_a.audit.json");
    await writeFile(file, JSON.stringify(bundle));
    // Offline, by its file, with the public key only.
    const verified = await verifyAuditLog(file, { publicKey: keys.publicKey });
    expect(verified).toMatchObject({ intact: true, chain: "signed", entries: 3 });
    expect(verified.records.map((shown) => shown.toolCallId)).toEqual(["call_1", "call_3"]);

    const hidden = structuredClone(bundle);
    const third = hidden.entries[2] as { record: ApprovalAuditRecord };
    const { record: _record, ...link } = {
      ...third,
      runId: "run_a",
      decidedAt: third.record.decidedAt,
    };
    hidden.entries[2] = link as never;
    const hiddenCheck = await verifyAuditLog(hidden, { publicKey: keys.publicKey });
    expect(hiddenCheck.intact).toBe(false);
    expect(hiddenCheck.problems.join("\n")).toMatch(
      /entry 3: it is of the selection, but the bundle leaves its record out/,
    );

    const moved = structuredClone(bundle);
    (moved.entries[1] as { runId: string }).runId = "run_c";
    const movedCheck = await verifyAuditLog(moved, { publicKey: keys.publicKey });
    expect(movedCheck.problems.join("\n")).toMatch(/entry 2: its signature does not verify/);

    // Anyone can sign a bundle with a key of their own: without the agent's
    // public key, a bundle is at most consistent, never intact.
    const unpinned = await verifyAuditLog(bundle);
    expect(unpinned.intact).toBe(false);
    expect(unpinned.consistent).toBe(true);
    expect(unpinned.unverifiedKey).toBe(unpinned.publicKey);
    expect(unpinned.problems.join("\n")).toMatch(
      /signed by an unverified key sha256:[0-9a-f]{64}: give the agent's public key/,
    );
  });

  it("a time range of a PostgreSQL log exports and verifies; an unsigned or HMAC-keyed log is not exported", async () => {
    const keys = keyPair();
    const schema = uniqueSchema("audit_bundle");
    const log = new PostgresAuditLog({
      connectionString: testDatabaseUrl(),
      schema,
      auditSigningKey: keys.privateKey,
    });
    const unsigned = new PostgresAuditLog({
      connectionString: testDatabaseUrl(),
      schema: uniqueSchema("audit_unsigned"),
      auditKey: "k".repeat(40),
      publicKey: keys.publicKey,
    });
    try {
      await log.append(record(1, "run_a", "2026-01-01T00:00:00.000Z"));
      await log.append(record(2, "run_a", "2026-01-02T00:00:00.000Z"));
      await log.append(record(3, "run_b", "2026-01-03T00:00:00.000Z"));
      const bundle = await log.exportBundle({
        since: "2026-01-02T00:00:00Z",
        until: "2026-01-03T00:00:00Z",
      });
      const verified = await verifyAuditLog(JSON.parse(JSON.stringify(bundle)), {
        publicKey: keys.publicKey,
      });
      expect(verified.intact).toBe(true);
      expect(verified.records.map((shown) => shown.toolCallId)).toEqual(["call_2"]);
      await expect(log.exportBundle({ since: "yesterday" })).rejects.toThrow(
        /since must be a time in ISO 8601/,
      );

      await unsigned.append(record(1, "run_a"));
      await expect(unsigned.exportBundle()).rejects.toThrow(/HMAC-keyed entries/);
      const plain = new JsonlAuditLog({ path: join(await directory(), "plain.jsonl") });
      await plain.append(record(1, "run_a"));
      await expect(plain.exportBundle()).rejects.toThrow(/without its public key/);
    } finally {
      await log.close();
      await unsigned.close();
      const admin = new pg.Client({ connectionString: testDatabaseUrl() });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.query(`DROP SCHEMA IF EXISTS "${unsigned.schema}" CASCADE`);
      await admin.end();
    }
  });
});

describe("anchoring each head elsewhere", () => {
  it("the anchor command receives every head, never the keys; an anchor that fails is a warning, never a failed append", async () => {
    const keys = keyPair();
    const folder = await directory();
    const path = join(folder, "audit.jsonl");
    const anchors = join(folder, "anchors.jsonl");
    const seen = join(folder, "environment.txt");
    process.env.SWITCHYARD_AUDIT_SIGNING_KEY = keys.privateKey;
    try {
      const log = new JsonlAuditLog({
        path,
        auditSigningKey: keys.privateKey,
        anchorCommand: `cat >> '${anchors}'; env > '${seen}'`,
      });
      await log.append(record(1, "run_a"));
      await log.append(record(2, "run_a"));
      const heads = (await readFile(anchors, "utf8"))
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line));
      // The genesis head, then one per entry.
      expect(heads.map((head) => head.entries)).toEqual([0, 1, 2]);
      expect(await readFile(seen, "utf8")).not.toContain("PRIVATE KEY");
      const verified = await verifyAuditLog(path, {
        publicKey: keys.publicKey,
        anchor: heads.at(-1),
      });
      expect(verified.intact).toBe(true);

      // The entry and its head are stored before the anchor runs: a failed
      // anchor is a warning on the writer's side, never a failed append
      // (the gate would refuse a call the trail already shows approved).
      const warnings: Array<{ msg: string; stderr?: string }> = [];
      const failing = new JsonlAuditLog({
        path,
        auditSigningKey: keys.privateKey,
        anchorCommand: "echo bucket unreachable, token sk-live-abcdefghijklmnopqrstuv >&2; exit 3",
        logger: pino(
          { level: "warn" },
          { write: (line: string) => warnings.push(JSON.parse(line)) },
        ),
      });
      await failing.append(record(3, "run_a"));
      const after = await verifyAuditLog(path, { publicKey: keys.publicKey });
      expect(after.intact).toBe(true);
      expect(after.records.map((entry) => entry.toolCallId)).toEqual([
        "call_1",
        "call_2",
        "call_3",
      ]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toMatch(
        /the audit anchor command exited with 3; the head of 3 entries is stored but not anchored/,
      );
      expect(warnings[0]?.msg).not.toContain("bucket unreachable");
      expect(warnings[0]?.stderr).toContain("bucket unreachable");
      expect(warnings[0]?.stderr).not.toContain("sk-live-abcdefghijklmnopqrstuv");
      // The next head anchored covers the entry whose head was not.
      await log.append(record(4, "run_a"));
      const last = JSON.parse((await readFile(anchors, "utf8")).trimEnd().split("\n").at(-1) ?? "");
      expect(last.entries).toBe(4);
      expect((await verifyAuditLog(path, { publicKey: keys.publicKey, anchor: last })).intact).toBe(
        true,
      );
      expect(() => new JsonlAuditLog({ path, anchorCommand: " " })).toThrow(
        /anchorCommand must be a shell command/,
      );
    } finally {
      delete process.env.SWITCHYARD_AUDIT_SIGNING_KEY;
    }
  });
});

describe("a failed anchor in PostgreSQL", () => {
  it("the committed entry stays, the append resolves, and the warning holds the command's stderr without secrets", async () => {
    const keys = keyPair();
    const warnings: Array<{ msg: string; stderr?: string }> = [];
    const log = new PostgresAuditLog({
      connectionString: testDatabaseUrl(),
      schema: uniqueSchema("audit_anchor_fails"),
      auditSigningKey: keys.privateKey,
      anchorCommand: "echo denied for Bearer abcdef1234567890abcdef >&2; exit 4",
      logger: pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line)) }),
    });
    try {
      await log.append(record(1, "run_a"));
      const verified = await log.verify();
      expect(verified).toMatchObject({ intact: true, chain: "signed", entries: 1 });
      // The head committed with the entry: a warning, not a failure.
      expect(warnings.map((warning) => warning.msg)).toEqual([
        expect.stringMatching(/exited with 4; the head of 1 entries is stored but not anchored/),
      ]);
      expect(warnings[0]?.stderr).toContain("denied for");
      expect(warnings[0]?.stderr).not.toContain("abcdef1234567890abcdef");
    } finally {
      await log.close();
    }
  });
});

describe("from an HMAC-keyed trail to a signed one", () => {
  it("goes on signed with both keys, says what it needs with the signing key alone, and verifies with both", async () => {
    const keys = keyPair();
    const auditKey = "h".repeat(40);
    const path = join(await directory(), "audit.jsonl");
    await new JsonlAuditLog({ path, auditKey }).append(record(1, "run_a"));
    await expect(
      new JsonlAuditLog({ path, auditSigningKey: keys.privateKey }).append(record(2, "run_a")),
    ).rejects.toThrow(/is keyed; appending to it needs its key .*beside the signing key/);
    await new JsonlAuditLog({ path, auditKey, auditSigningKey: keys.privateKey }).append(
      record(2, "run_a"),
    );
    const both = await verifyAuditLog(path, { auditKey, publicKey: keys.publicKey });
    expect(both).toMatchObject({ intact: true, chain: "signed", entries: 2 });
    // The keyed entry before the signatures can be checked only with its key.
    await expect(verifyAuditLog(path, { publicKey: keys.publicKey })).rejects.toThrow(
      /needs its key/,
    );
  });
});
