import assert from "node:assert/strict";
import { createHash, createPrivateKey } from "node:crypto";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import type { AuditLog, AuditLogHead } from "../agent/approval/audit-log.js";
import { canonicalJson } from "../internal/canonical-json.js";
import { entryStatement, headStatement } from "../stores/audit-chain.js";
import {
  type AuditSigningKeyPair,
  generateAuditSigningKeyPair,
  signText,
} from "../stores/audit-signing.js";
import { exportAuditBundle } from "../stores/export-audit-bundle.js";
import { verifyAuditLog } from "../stores/jsonl-audit-log.js";
import { type ConformanceTest, declareConformanceTest } from "./declare-conformance-test.js";

/** The keys a log under test is made or opened with. */
export interface AuditLogKeys {
  /** The HMAC key (`auditKey`). */
  auditKey?: string | undefined;
  /** The Ed25519 private key, PKCS#8 PEM (`auditSigningKey`). */
  auditSigningKey?: string | undefined;
  /** The Ed25519 public key, SPKI PEM, for a reader without the signing key (`publicKey`). */
  publicKey?: string | undefined;
}

/** One empty audit log made for one test, with what the suite needs to reach under it. */
export interface AuditLogUnderTest {
  log: AuditLog;
  /** The same log opened again, as another process, connection or auditor would (with these keys only). */
  openAgain(options: AuditLogKeys): AuditLog | Promise<AuditLog>;
  /** The stored entries, each as the JSON text it is kept as, in order. */
  readEntries(): Promise<string[]>;
  /** Replaces the stored entries, leaving the head as it is: what someone with write access could do. */
  writeEntries(entries: string[]): Promise<void>;
  /** The stored head, parsed (undefined when there is none). */
  readHead(): Promise<unknown>;
  /** Replaces the stored head, or removes it (`undefined`), as someone with write access could. */
  writeHead(head: object | undefined): Promise<void>;
  /** Frees what was made (a pool, a directory). */
  close(): Promise<void>;
}

/** What {@link auditLogConformance} needs: your test framework's functions and your log. */
export interface AuditLogConformanceOptions {
  /** Names the suite (`describe` of vitest, jest, mocha or `node:test`). */
  describe: (name: string, body: () => void) => unknown;
  /** Declares one test. */
  it: (name: string, body: ConformanceTest) => unknown;
  /** Makes an empty log for one test, keyed with `auditKey` and signed with `auditSigningKey` when given. */
  createLog: (options: AuditLogKeys) => Promise<AuditLogUnderTest>;
  /** The suite's name. @default "AuditLog conformance" */
  name?: string | undefined;
}

const testKey = "audit-conformance-key-0123456789abcdef";

/** The signing keys of the suite: the agent's, and an attacker's. */
let keyPairs: { agent: AuditSigningKeyPair; attacker: AuditSigningKeyPair } | undefined;
function signingKeys() {
  keyPairs ??= { agent: generateAuditSigningKeyPair(), attacker: generateAuditSigningKeyPair() };
  return keyPairs;
}

/**
 * The contract of an {@link AuditLog}, as tests your log must pass: appends
 * that chain in order and read back (all, or one run's); a keyed chain
 * that verifies only under its key; a changed entry, a chain recomputed
 * without the key, and an entry cut from the end each reported; and
 * concurrent appends from two connections keeping one chain; and, as an
 * auditor holding only the public key would check a signed trail: a trail
 * truncated, emptied (with and without its head), reordered, spliced from
 * another trail, re-signed with another key, or given an older head, each
 * reported; an older copy of log and head, or a trail emptied and begun
 * again, caught by an anchored head; an empty trail verifying only with
 * its signed genesis head (`open`); and an exported bundle (`readTrail`)
 * verifying offline and failing when a record is altered. Assertions use
 * `node:assert`, so any framework runs it.
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
    keys: string | AuditLogKeys | undefined,
    body: (made: AuditLogUnderTest) => Promise<void>,
  ) =>
    declareConformanceTest(
      it,
      name,
      {
        make: () => options.createLog(typeof keys === "string" ? { auditKey: keys } : (keys ?? {})),
        free: (made) => made.close(),
      },
      body,
    );
  const signed = () => ({ auditSigningKey: signingKeys().agent.privateKey });
  /** The log as an auditor opens it: the agent's public key, nothing else. */
  const auditor = (made: AuditLogUnderTest) =>
    made.openAgain({ publicKey: signingKeys().agent.publicKey });
  const verifiedByAuditor = async (made: AuditLogUnderTest, anchor?: unknown) =>
    (await auditor(made)).verify(anchor === undefined ? {} : { anchor });

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

    for (const [keyed, auditKey] of [
      ["keyed", testKey],
      ["unkeyed", undefined],
      ["signed", "signed"],
    ] as const) {
      const keys = auditKey === "signed" ? signed : () => ({ auditKey });
      test(`a changed entry is reported (${keyed})`, keys(), async (made) => {
        for (const index of [1, 2]) await made.log.append(sampleRecord(index));
        const entries = await made.readEntries();
        entries[0] = (entries[0] ?? "").replace('"outcome":"refused"', '"outcome":"approved"');
        await made.writeEntries(entries);
        assert.equal((await made.log.verify()).intact, false);
      });

      test(`an entry cut from the end is reported (${keyed})`, keys(), async (made) => {
        for (const index of [1, 2, 3]) await made.log.append(sampleRecord(index));
        await made.writeEntries((await made.readEntries()).slice(0, 2));
        const verification =
          keyed === "signed" ? await verifiedByAuditor(made) : await made.log.verify();
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

    test("a signed chain verifies with the public key alone", signed(), async (made) => {
      for (const index of [1, 2, 3]) await made.log.append(sampleRecord(index));
      const verification = await verifiedByAuditor(made);
      assert.equal(verification.intact, true, verification.problems.join("; "));
      assert.equal(verification.chain, "signed");
      assert.equal(verification.entries, 3);
      const keyless = await made.openAgain({});
      await assert.rejects(() => keyless.verify(), /signed \(Ed25519\).*public key/);
    });

    test(
      "an empty signed trail verifies only with its signed genesis head",
      signed(),
      async (made) => {
        assert.equal(typeof made.log.open, "function", "a signing log has open()");
        await made.log.open?.();
        const begun = await verifiedByAuditor(made);
        assert.equal(begun.intact, true, begun.problems.join("; "));
        assert.equal(begun.entries, 0);
        assert.equal(begun.head?.entries, 0);
        await made.writeHead(undefined);
        const headless = await verifiedByAuditor(made);
        assert.equal(headless.intact, false);
        assert.match(headless.problems.join("\n"), /no entries and no head/);
      },
    );

    for (const keys of [{ auditKey: testKey }, "signed"] as const) {
      const kind = keys === "signed" ? "signed" : "keyed";
      test(
        `a ${kind} trail emptied, with or without its head, is reported`,
        keys === "signed" ? signed() : keys,
        async (made) => {
          const check = () => (kind === "signed" ? verifiedByAuditor(made) : made.log.verify());
          for (const index of [1, 2, 3]) await made.log.append(sampleRecord(index));
          await made.writeEntries([]);
          const emptied = await check();
          assert.equal(emptied.intact, false);
          assert.match(emptied.problems.join("\n"), /head says 3 entries/);
          await made.writeHead(undefined);
          const headless = await check();
          assert.equal(headless.intact, false);
          assert.match(headless.problems.join("\n"), /no entries and no head/);
        },
      );
    }

    test("reordered signed entries are reported", signed(), async (made) => {
      for (const index of [1, 2, 3]) await made.log.append(sampleRecord(index));
      const [first, second, third] = await made.readEntries();
      await made.writeEntries([second ?? "", first ?? "", third ?? ""]);
      const verification = await verifiedByAuditor(made);
      assert.equal(verification.intact, false);
      assert.match(verification.problems.join("\n"), /numbered 2, expected 1/);
    });

    test(
      "entries spliced from another trail signed with the same key are reported",
      signed(),
      async (made) => {
        const other = await options.createLog(signed());
        try {
          for (const index of [1, 2, 3]) {
            await made.log.append(sampleRecord(index));
            await other.log.append(sampleRecord(index + 10));
          }
          const ours = await made.readEntries();
          const theirs = await other.readEntries();
          await made.writeEntries([ours[0] ?? "", theirs[1] ?? "", ours[2] ?? ""]);
          const verification = await verifiedByAuditor(made);
          assert.equal(verification.intact, false);
          assert.match(
            verification.problems.join("\n"),
            /entry 2: does not follow the entry before/,
          );
        } finally {
          await other.close();
        }
      },
    );

    test(
      "a trail re-signed with another key is reported under the agent's public key",
      signed(),
      async (made) => {
        for (const index of [1, 2]) await made.log.append(sampleRecord(index));
        const attacker = createPrivateKey(signingKeys().attacker.privateKey);
        const entries = (await made.readEntries()).map((text) => JSON.parse(text) as Entry);
        const first = entries[0];
        if (first) first.record = { ...first.record, outcome: "approved" };
        const forged = recomputeUnkeyed(entries).map((entry) => ({
          ...entry,
          signature: signText(entryStatement(entry), attacker),
        }));
        await made.writeEntries(forged.map((entry) => JSON.stringify(entry)));
        const head = (await made.readHead()) as AuditLogHead;
        const forgedHead = { ...head, entries: forged.length, lastHash: forged.at(-1)?.hash ?? "" };
        await made.writeHead({
          ...forgedHead,
          signature: signText(headStatement(forgedHead), attacker),
        });
        const verification = await verifiedByAuditor(made);
        assert.equal(verification.intact, false);
        assert.match(
          verification.problems.join("\n"),
          /signature does not verify under this public key/,
        );
      },
    );

    test("a head naming fewer entries than were written is reported", signed(), async (made) => {
      for (const index of [1, 2]) await made.log.append(sampleRecord(index));
      const older = await made.readHead();
      for (const index of [3, 4]) await made.log.append(sampleRecord(index));
      await made.writeHead(older as object);
      const verification = await verifiedByAuditor(made);
      assert.equal(verification.intact, false);
      assert.match(verification.problems.join("\n"), /head says 2 entries/);
      await assert.rejects(
        () => made.log.append(sampleRecord(5)),
        /does not end where its head says/,
      );
    });

    test("the writer never chains onto a head it did not sign", signed(), async (made) => {
      for (const index of [1, 2, 3]) await made.log.append(sampleRecord(index));
      const entries = await made.readEntries();
      await made.writeEntries(entries.slice(0, 2));
      const second = JSON.parse(entries[1] ?? "{}") as Entry;
      await made.writeHead({ entries: 2, lastHash: second.hash });
      await assert.rejects(() => made.log.append(sampleRecord(4)));
      assert.equal((await made.readEntries()).length, 2);
    });

    test(
      "the writer never chains onto an entry past its head that it did not write",
      signed(),
      async (made) => {
        for (const index of [1, 2]) await made.log.append(sampleRecord(index));
        const entries = await made.readEntries();
        const second = JSON.parse(entries[1] ?? "{}") as Entry;
        // Someone adds an entry after the head, as if the writer had stopped before moving it.
        const record = sampleRecord(3);
        const unsigned = {
          seq: 3,
          prev: second.hash,
          record,
          hash: entryHashOf(3, second.hash, record),
        };
        await made.writeEntries([...entries, JSON.stringify(unsigned)]);
        await assert.rejects(() => made.log.append(sampleRecord(4)), /past its head/);
        assert.equal((await made.readEntries()).length, 3);
      },
    );

    test(
      "an older copy of log and head together is caught by an anchored head",
      signed(),
      async (made) => {
        for (const index of [1, 2]) await made.log.append(sampleRecord(index));
        const olderEntries = await made.readEntries();
        const olderHead = await made.readHead();
        for (const index of [3, 4]) await made.log.append(sampleRecord(index));
        const anchored = await made.readHead();
        assert.equal((await verifiedByAuditor(made, anchored)).intact, true);
        await made.writeEntries(olderEntries);
        await made.writeHead(olderHead as object);
        // From the store alone an older copy is whole: what the anchor is for.
        assert.equal((await verifiedByAuditor(made)).intact, true);
        const verification = await verifiedByAuditor(made, anchored);
        assert.equal(verification.intact, false);
        assert.match(
          verification.problems.join("\n"),
          /anchored head names 4 entries, but the trail holds 2/,
        );
      },
    );

    test(
      "a trail emptied and begun again is caught by an anchored head",
      signed(),
      async (made) => {
        for (const index of [1, 2]) await made.log.append(sampleRecord(index));
        const anchored = await made.readHead();
        await made.writeEntries([]);
        await made.writeHead(undefined);
        const writer = await made.openAgain(signed());
        // A writer may refuse to begin again (the trail shows it was emptied), or begin a new chain.
        await writer.append(sampleRecord(3)).catch(() => {});
        const verification = await verifiedByAuditor(made, anchored);
        assert.equal(verification.intact, false);
      },
    );

    test(
      "an exported bundle verifies offline and fails when a record is altered",
      signed(),
      async (made) => {
        for (const index of [1, 2, 3]) await made.log.append(sampleRecord(index));
        const publicKey = signingKeys().agent.publicKey;
        const bundle = await exportAuditBundle(made.log, { publicKey, runId: "run_a" });
        const offline = JSON.parse(JSON.stringify(bundle)) as typeof bundle;
        const verification = await verifyAuditLog(offline, { publicKey });
        assert.equal(verification.intact, true, verification.problems.join("; "));
        assert.deepEqual(
          verification.records.map((record) => record.toolCallId),
          ["call_1", "call_3"],
        );
        const altered = JSON.parse(JSON.stringify(bundle)) as typeof bundle;
        const first = altered.entries[0];
        if (first && "record" in first) first.record.outcome = "approved";
        assert.equal((await verifyAuditLog(altered, { publicKey })).intact, false);
        const other = signingKeys().attacker.publicKey;
        assert.equal((await verifyAuditLog(offline, { publicKey: other })).intact, false);
      },
    );
  });
}

interface Entry {
  seq: number;
  prev: string;
  record: ApprovalAuditRecord;
  hash: string;
  signature?: string;
}

function recomputeUnkeyed(entries: Entry[]): Entry[] {
  let prev = `sha256:${"0".repeat(64)}`;
  return entries.map((entry, index) => {
    const seq = index + 1;
    const hash = entryHashOf(seq, prev, entry.record);
    const rewritten = { seq, prev, record: entry.record, hash };
    prev = hash;
    return rewritten;
  });
}

function entryHashOf(seq: number, prev: string, record: ApprovalAuditRecord): string {
  const content = `${prev}\n${seq}\n${canonicalJson(record)}`;
  return `sha256:${createHash("sha256").update(content, "utf8").digest("hex")}`;
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
