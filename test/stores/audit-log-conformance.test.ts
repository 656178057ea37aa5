import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { JsonlAuditLog } from "../../src/stores/jsonl-audit-log.js";
import { PostgresAuditLog } from "../../src/stores/postgres-audit-log.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import type { AuditLogKeys } from "../../src/testing/audit-log-conformance.js";
import { auditLogConformance, ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { callbackTools } from "../agent/durable/durable-helpers.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";

auditLogConformance({
  name: "JsonlAuditLog conformance",
  describe,
  it,
  createLog: async (keys) => {
    const directory = await mkdtemp(join(tmpdir(), "switchyard-audit-conformance-"));
    const path = join(directory, "audit.jsonl");
    return {
      log: new JsonlAuditLog({ path, ...keys }),
      openAgain: (options) => new JsonlAuditLog({ path, ...options }),
      readEntries: async () => (await readFile(path, "utf8")).split("\n").filter(Boolean),
      writeEntries: (entries) =>
        writeFile(path, entries.length > 0 ? `${entries.join("\n")}\n` : ""),
      readHead: async () => JSON.parse(await readFile(`${path}.head`, "utf8")),
      writeHead: (head) =>
        head === undefined
          ? rm(`${path}.head`, { force: true })
          : writeFile(`${path}.head`, JSON.stringify(head)),
      close: () => rm(directory, { recursive: true, force: true }),
    };
  },
});

auditLogConformance({
  name: "PostgresAuditLog conformance",
  describe,
  it,
  createLog: async (keys) => {
    const schema = uniqueSchema("audit");
    const connectionString = testDatabaseUrl();
    const opened: PostgresAuditLog[] = [];
    const open = (options: AuditLogKeys) => {
      const log = new PostgresAuditLog({ connectionString, schema, ...options });
      opened.push(log);
      return log;
    };
    const admin = new pg.Client({ connectionString });
    await admin.connect();
    const table = `"${schema}".audit_log`;
    return {
      log: open(keys),
      openAgain: (options) => open(options),
      readEntries: async () =>
        (await admin.query<{ entry: string }>(`SELECT entry FROM ${table} ORDER BY seq`)).rows.map(
          (row) => row.entry,
        ),
      writeEntries: async (entries) => {
        await admin.query(`DELETE FROM ${table}`);
        for (const [index, entry] of entries.entries()) {
          await admin.query(`INSERT INTO ${table} (seq, entry) VALUES ($1, $2)`, [
            index + 1,
            entry,
          ]);
        }
      },
      readHead: async () => {
        const { rows } = await admin.query<{ head: string | null }>(
          `SELECT head FROM "${schema}".audit_head`,
        );
        return rows[0]?.head ? JSON.parse(rows[0].head) : undefined;
      },
      // Emptied as someone with write access would: the head set to nothing.
      writeHead: async (head) => {
        await admin.query(`UPDATE "${schema}".audit_head SET head = $1`, [
          head === undefined ? null : JSON.stringify(head),
        ]);
      },
      close: async () => {
        await Promise.all(opened.map((log) => log.close()));
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      },
    };
  },
});

describe("PostgresRunStore's audit log", () => {
  it("is prepared by the store's own migration: the schema is migrated once for both", async () => {
    const schema = uniqueSchema("store_audit_once");
    const pool = new pg.Pool({ connectionString: testDatabaseUrl(), max: 2 });
    const store = new PostgresRunStore({ pool, schema });
    let checkouts = 0;
    pool.on("acquire", () => {
      checkouts++;
    });
    try {
      const decidedAt = new Date().toISOString();
      await store.auditLog.append({
        action: "delete_callbacks",
        toolCallId: "call-1",
        runId: "run_once",
        fingerprint: "sha256:once",
        outcome: "approved",
        requestedAt: decidedAt,
        decidedAt,
      });
      // The append migrated the schema (one checkout) and wrote (another); the store has nothing left to migrate.
      await store.migrate();
      expect(checkouts).toBe(2);
      expect(await store.auditLog.read({ runId: "run_once" })).toEqual([
        expect.objectContaining({ toolCallId: "call-1", outcome: "approved" }),
      ]);
    } finally {
      await store.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    }
  });

  it("shares the store's pool and schema, keyed with its auditKey, and closes with it", async () => {
    const schema = uniqueSchema("store_audit");
    const auditKey = "e".repeat(40);
    const store = new PostgresRunStore({ connectionString: testDatabaseUrl(), schema, auditKey });
    try {
      const { tools, deletions } = callbackTools();
      const agent = new Agent({
        model: new ScriptedModel([
          { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] } }] },
          { text: "done" },
        ]),
        tools,
        approver: new ScriptedApprover(["approve"]),
        runStore: store,
        auditLog: store.auditLog,
      });
      const result = await agent.run("tidy");
      expect(deletions).toEqual([["cb-1"]]);
      expect(await store.auditLog.read({ runId: result.runId! })).toEqual([
        expect.objectContaining({ outcome: "approved", runId: result.runId }),
      ]);
      expect(await store.auditLog.verify()).toMatchObject({ intact: true, chain: "keyed" });
      expect(
        () => new PostgresRunStore({ connectionString: testDatabaseUrl(), auditKey: "x" }),
      ).toThrow(/auditKey must be a string of at least 32 characters/);
    } finally {
      await store.close();
      const admin = new pg.Client({ connectionString: testDatabaseUrl() });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });
});
