import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import type { AuditLog } from "../agent/approval/audit-log.js";
import { canonicalJson } from "../internal/canonical-json.js";
import { type ConformanceTest, declareConformanceTest } from "./declare-conformance-test.js";

/** One empty audit log made for one test, with what the suite needs to reach under it. */
export interface AuditLogUnderTest {
  log: AuditLog;
  /** The same log opened again, as another process or connection would (optionally with another key). */
  openAgain(options: { auditKey?: string | undefined }): AuditLog | Promise<AuditLog>;
  /** The stored entries, each as the JSON text it is kept as, in order. */
  readEntries(): Promise<string[]>;
  /** Replaces the stored entries, leaving the head as it is: what someone with write access could do. */
  writeEntries(entries: string[]): Promise<void>;
  /** Replaces the stored head (`{ entries, lastHash }`), as someone with write access could. */
  writeHead(head: { entries: number; lastHash: string }): Promise<void>;
  /** Frees what was made (a pool, a directory). */
  close(): Promise<void>;
}

/** What {@link auditLogConformance} needs: your test framework's functions and your log. */
export interface AuditLogConformanceOptions {
  /** Names the suite (`describe` of vitest, jest, mocha or `node:test`). */
  describe: (name: string, body: () => void) => unknown;
  /** Declares one test. */
  it: (name: string, body: ConformanceTest) => unknown;
  /** Makes an empty log for one test, keyed with `auditKey` when given. */
  createLog: (options: { auditKey?: string | undefined }) => Promise<AuditLogUnderTest>;
  /** The suite's name. @default "AuditLog conformance" */
  name?: string | undefined;
}

const testKey = "audit-conformance-key-0123456789abcdef";

/**
 * The contract of an {@link AuditLog}, as tests your log must pass: appends
 * that chain in order and read back (all, or one run's); a keyed chain
 * that verifies only under its key; a changed entry, a chain recomputed
 * without the key, and an entry cut from the end each reported; and
 * concurrent appends from two connections keeping one chain. Assertions
 * use `node:assert`, so any framework runs it.
 *
 * @example
 * import { describe, it } from "vitest";
 * import { auditLogConformance } from "switchyard-agents/testing";
 * auditLogConformance({ describe, it, createLog: async ({ auditKey }) => makeMyLog(auditKey) });
 */
export function auditLogConformance(options: AuditLogConformanceOptions): void {
  const { describe, it } = options;
  const test = (
    name: string,
    auditKey: string | undefined,
    body: (made: AuditLogUnderTest) => Promise<void>,
  ) =>
    declareConformanceTest(
      it,
      name,
      { make: () => options.createLog({ auditKey }), free: (made) => made.close() },
      body,
    );

  describe(options.name ?? "AuditLog conformance", () => {
    test("appends chain in order, read back whole or by run", undefined, async ({ log }) => {
      for (const index of [1, 2, 3]) await log.append(sampleRecord(index));
      const verification = await log.verify();
      assert.equal(verification.intact, true, verification.problems.join("; "));
      assert.equal(verification.chain, "unkeyed");
      assert.equal(verification.entries, 3);
      assert.deepEqual(
        (await log.read()).map((record) => record.toolCallId),
        ["call_1", "call_2", "call_3"],
      );
      assert.deepEqual(
        (await log.read({ runId: "run_b" })).map((record) => record.toolCallId),
        ["call_2"],
      );
    });

    test("a keyed chain verifies under its key only", testKey, async (made) => {
      for (const index of [1, 2]) await made.log.append(sampleRecord(index));
      const verification = await made.log.verify();
      assert.equal(verification.intact, true, verification.problems.join("; "));
      assert.equal(verification.chain, "keyed");
      const other = await made.openAgain({ auditKey: "another-key-of-thirty-two-characters" });
      assert.equal((await other.verify()).intact, false);
      const keyless = await made.openAgain({});
      await assert.rejects(() => keyless.verify(), /needs its key/);
    });

    for (const auditKey of [testKey, undefined]) {
      const keyed = auditKey ? "keyed" : "unkeyed";
      test(`a changed entry is reported (${keyed})`, auditKey, async (made) => {
        for (const index of [1, 2]) await made.log.append(sampleRecord(index));
        const entries = await made.readEntries();
        entries[0] = (entries[0] ?? "").replace('"outcome":"refused"', '"outcome":"approved"');
        await made.writeEntries(entries);
        assert.equal((await made.log.verify()).intact, false);
      });

      test(`an entry cut from the end is reported (${keyed})`, auditKey, async (made) => {
        for (const index of [1, 2, 3]) await made.log.append(sampleRecord(index));
        await made.writeEntries((await made.readEntries()).slice(0, 2));
        const verification = await made.log.verify();
        assert.equal(verification.intact, false);
        assert.match(verification.problems.join("\n"), /head/);
      });
    }

    test("a chain recomputed without the key is reported under the key", testKey, async (made) => {
      for (const index of [1, 2]) await made.log.append(sampleRecord(index));
      const entries = (await made.readEntries()).map((text) => JSON.parse(text) as Entry);
      const first = entries[0];
      if (first) first.record = { ...first.record, outcome: "approved" };
      const recomputed = recomputeUnkeyed(entries);
      await made.writeEntries(recomputed.map((entry) => JSON.stringify(entry)));
      const last = recomputed.at(-1);
      await made.writeHead({ entries: recomputed.length, lastHash: last?.hash ?? "" });
      assert.equal((await made.log.verify()).intact, false);
    });

    test("appends from two connections at once keep one chain", testKey, async (made) => {
      const second = await made.openAgain({ auditKey: testKey });
      await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          (index % 2 === 0 ? made.log : second).append(sampleRecord(index + 1)),
        ),
      );
      const verification = await made.log.verify();
      assert.equal(verification.intact, true, verification.problems.join("; "));
      assert.equal(verification.entries, 12);
      assert.equal(new Set(verification.records.map((record) => record.toolCallId)).size, 12);
    });
  });
}

interface Entry {
  seq: number;
  prev: string;
  record: ApprovalAuditRecord;
  hash: string;
}

function recomputeUnkeyed(entries: Entry[]): Entry[] {
  let prev = `sha256:${"0".repeat(64)}`;
  return entries.map((entry, index) => {
    const seq = index + 1;
    const content = `${prev}\n${seq}\n${canonicalJson(entry.record)}`;
    const hash = `sha256:${createHash("sha256").update(content, "utf8").digest("hex")}`;
    const rewritten = { seq, prev, record: entry.record, hash };
    prev = hash;
    return rewritten;
  });
}

function sampleRecord(index: number): ApprovalAuditRecord {
  return {
    action: "delete_callbacks",
    toolCallId: `call_${index}`,
    runId: index === 2 ? "run_b" : "run_a",
    fingerprint: `sha256:${String(index).padStart(64, "0")}`,
    outcome: index % 2 === 0 ? "approved" : "refused",
    decidedBy: "person",
    ...(index % 2 === 0 ? {} : { code: "denied", reason: "no" }),
    requestedAt: "2026-01-01T00:00:00.000Z",
    decidedAt: "2026-01-01T00:00:01.000Z",
  };
}
