import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { minimumStateKeyLength } from "../agent/agent-options.js";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import type { AuditLogHead, AuditLogVerification } from "../agent/approval/audit-log.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { buildOnFirstUse } from "../internal/build-on-first-use.js";
import { canonicalJson } from "../internal/canonical-json.js";
import { loadZod } from "../internal/load-zod.js";

/** The `prev` of the first entry of a log. */
export const auditLogGenesis = `sha256:${"0".repeat(64)}`;

/**
 * One entry of an audit log: the record, its place in the log, the hash of
 * the entry before it, and its own hash over all three (an HMAC-SHA256
 * under the log's key, `hmac-sha256:...`, or a plain SHA-256 without one,
 * `sha256:...`).
 */
export interface AuditLogEntry {
  /** 1 for the first entry. */
  seq: number;
  /** The `hash` of the entry before, or `sha256:` and 64 zeros for the first. */
  prev: string;
  record: ApprovalAuditRecord;
  /** Over `prev`, `seq` and the canonical JSON of `record`. */
  hash: string;
}

/** Thrown when a keyed log is checked without its key. */
export class AuditKeyRequiredError extends ConfigurationError {
  override name = "AuditKeyRequiredError";
}

/** Checks an `auditKey` option: a string long enough not to be guessed, or undefined. */
export function checkAuditKey(key: unknown, owner: string): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== "string" || key.length < minimumStateKeyLength) {
    throw new ConfigurationError(
      `${owner}'s auditKey must be a string of at least ${minimumStateKeyLength} characters (e.g. 32 random bytes as hex, openssl rand -hex 32); a short key is guessable.`,
    );
  }
  return key;
}

/**
 * The entry that follows `last` (undefined for the first), hashed under
 * `key` when given. A keyed chain appended to without its key is a
 * `ConfigurationError` naming the log (`where`): the chain would lose it.
 */
export function nextEntry(
  last: { seq: number; hash: string } | undefined,
  record: ApprovalAuditRecord,
  key: string | undefined,
  where: string,
): AuditLogEntry {
  if (last && key === undefined && last.hash.startsWith("hmac-sha256:")) {
    throw new ConfigurationError(
      `${where} is keyed; appending to it needs its key (auditKey, or SWITCHYARD_AUDIT_KEY), or the chain would lose it`,
    );
  }
  const seq = (last?.seq ?? 0) + 1;
  const prev = last?.hash ?? auditLogGenesis;
  return { seq, prev, record, hash: entryHash(seq, prev, record, key) };
}

/** The head of a chain of `entries` ending in `lastHash`, with its MAC when there is a key. */
export function chainHead(
  entries: number,
  lastHash: string,
  key: string | undefined,
): AuditLogHead {
  return {
    entries,
    lastHash,
    ...(key !== undefined ? { mac: headMac(entries, lastHash, key) } : {}),
  };
}

function entryHash(
  seq: number,
  prev: string,
  record: ApprovalAuditRecord,
  key: string | undefined,
): string {
  const content = `${prev}\n${seq}\n${canonicalJson(record)}`;
  if (key === undefined) {
    return `sha256:${createHash("sha256").update(content, "utf8").digest("hex")}`;
  }
  return `hmac-sha256:${createHmac("sha256", key).update(content, "utf8").digest("hex")}`;
}

function headMac(entries: number, lastHash: string, key: string): string {
  const content = `head\n${entries}\n${lastHash}`;
  return `hmac-sha256:${createHmac("sha256", key).update(content, "utf8").digest("hex")}`;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}

const schemas = buildOnFirstUse(() => {
  const { z } = loadZod();
  const text = z.string();
  const record = z.strictObject({
    action: text,
    toolCallId: text,
    runId: text.optional(),
    fingerprint: text,
    approvalId: text.optional(),
    interactionId: text.optional(),
    outcome: z.enum(["approved", "refused", "expired"]),
    decidedBy: z.enum(["person", "policy", "expiry", "standing", "gate"]).optional(),
    code: text.optional(),
    reason: text.optional(),
    note: text.optional(),
    rule: text.optional(),
    policy: z
      .strictObject({ decision: z.enum(["allow", "deny", "ask"]), rule: text.optional() })
      .optional(),
    approverLink: text.optional(),
    approvedBy: text.optional(),
    questionDigest: text.optional(),
    standing: z
      .strictObject({
        rule: text,
        toolName: text,
        target: z
          .strictObject({
            service: text,
            address: text.optional(),
            account: text.optional(),
            environment: text.optional(),
          })
          .optional(),
        sameValue: z.strictObject({ label: text, value: text }).optional(),
        maxCalls: z.number().int(),
        until: text,
        fingerprint: text,
      })
      .optional(),
    coveredBy: z
      .strictObject({
        // Entries written before approvals had ids name the granting interaction.
        approvalId: text.optional(),
        interactionId: text.optional(),
        use: z.number().int(),
        maxCalls: z.number().int(),
        scope: text,
      })
      .optional(),
    approvers: z.array(text).optional(),
    requestedAt: text,
    decidedAt: text,
  });
  const entry = z.strictObject({
    seq: z.number().int().positive(),
    prev: text,
    record,
    hash: text,
  });
  const head = z.strictObject({
    entries: z.number().int().nonnegative(),
    lastHash: text,
    mac: text.optional(),
  });
  return { entry, head };
});

/** Parses one stored entry (JSON text); a description of what is wrong when it is not one. */
export function parseAuditEntry(text: string): AuditLogEntry | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: "not JSON" };
  }
  const parsed = schemas().entry.safeParse(value);
  if (parsed.success) return parsed.data as AuditLogEntry;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
  return { problem: `not an audit entry of a known shape (${issues.join("; ")})` };
}

/** Parses a stored head; a problem when it is not one. */
export function parseAuditHead(value: unknown): AuditLogHead | { problem: string } {
  const parsed = schemas().head.safeParse(value);
  if (parsed.success) return parsed.data as AuditLogHead;
  return { problem: "the head is not { entries, lastHash, mac? }" };
}

/**
 * Checks a chain of stored entries (one JSON text each) against its head
 * (`undefined` when none was kept), under `key` when given. Without a key,
 * a keyed entry or head cannot be checked: that throws
 * {@link AuditKeyRequiredError}. With a key, the last entry and the head
 * must carry it; entries written before a key was set may lead the chain
 * (the first keyed entry's HMAC covers their hashes).
 */
export function verifyAuditChain(
  texts: readonly string[],
  storedHead: unknown,
  options: {
    key: string | undefined;
    where: string;
    problems?: string[];
    /** A missing head is a problem even without a key (a log that always kept one). */
    headRequired?: boolean;
  },
): AuditLogVerification {
  const { key, where } = options;
  const problems = [...(options.problems ?? [])];
  const notes: string[] = [];
  const records: ApprovalAuditRecord[] = [];
  let prev = auditLogGenesis;
  let unkeyedLeading = 0;
  let seenKeyed = false;
  let lastKeyed: boolean | undefined;
  /** The last entry, when it could be read. */
  let last: AuditLogEntry | undefined;
  texts.forEach((text, index) => {
    const number = index + 1;
    const entry = parseAuditEntry(text);
    if ("problem" in entry) {
      problems.push(`entry ${number}: ${entry.problem}`);
      prev = "";
      lastKeyed = undefined;
      last = undefined;
      return;
    }
    last = entry;
    records.push(entry.record);
    const keyed = entry.hash.startsWith("hmac-sha256:");
    if (keyed && key === undefined) {
      throw new AuditKeyRequiredError(
        `${where} is keyed (its hashes are HMAC-SHA256): verifying it needs its key (the auditKey option, or SWITCHYARD_AUDIT_KEY for switchyard audit).`,
      );
    }
    if (entry.seq !== number)
      problems.push(
        `entry ${number}: numbered ${entry.seq}, expected ${number} (an entry was removed or moved)`,
      );
    if (entry.prev !== prev)
      problems.push(
        `entry ${number}: does not follow the entry before (its prev is not that entry's hash)`,
      );
    if (!keyed && key !== undefined) {
      if (seenKeyed) {
        problems.push(
          `entry ${number}: carries no key after keyed entries (the chain was recomputed without the key)`,
        );
      } else unkeyedLeading++;
    }
    const expected = entryHash(entry.seq, entry.prev, entry.record, keyed ? key : undefined);
    if (!sameText(entry.hash, expected)) {
      problems.push(
        keyed
          ? `entry ${number}: its content does not match its HMAC under this key (the entry was changed, or the key is not the log's)`
          : `entry ${number}: its content does not match its hash (the entry was changed)`,
      );
    }
    lastKeyed = keyed;
    seenKeyed ||= keyed;
    prev = entry.hash;
  });
  const entries = texts.length;
  if (key !== undefined && entries > 0 && lastKeyed !== true) {
    problems.push(
      `entry ${entries}: the last entry carries no key, so anyone could have written the chain (it was written without the key, or recomputed)`,
    );
  } else if (key !== undefined && unkeyedLeading > 0 && unkeyedLeading < entries) {
    notes.push(
      `entries 1 to ${unkeyedLeading} were written before a key was set; the keyed entry after them vouches for them`,
    );
  }
  const head = checkHead(storedHead, {
    entries,
    prev,
    last,
    key,
    problems,
    notes,
    headRequired: options.headRequired === true,
  });
  return {
    intact: problems.length === 0,
    chain: entries === 0 ? "empty" : key !== undefined ? "keyed" : "unkeyed",
    entries,
    lastHash: prev,
    head,
    problems,
    notes,
    records,
  };
}

function checkHead(
  stored: unknown,
  chain: {
    entries: number;
    prev: string;
    /** The last entry, when there is one and it could be read. */
    last: AuditLogEntry | undefined;
    key: string | undefined;
    problems: string[];
    notes: string[];
    headRequired: boolean;
  },
): AuditLogHead | undefined {
  const { entries, prev, last, key, problems, notes } = chain;
  if (stored === undefined) {
    if (entries === 0) return undefined;
    if (key !== undefined || chain.headRequired) {
      problems.push(
        "the log has no head (its entry count and last hash), so entries cut from the end cannot be ruled out",
      );
    } else {
      notes.push(
        "the log has no head (it was written before heads were kept): entries cut from the end cannot be detected",
      );
    }
    return undefined;
  }
  const head = parseAuditHead(stored);
  if ("problem" in head) {
    problems.push(head.problem);
    return undefined;
  }
  if (head.mac !== undefined && key === undefined) {
    throw new AuditKeyRequiredError(
      "the log's head is keyed (HMAC-SHA256): verifying the log needs its key (the auditKey option, or SWITCHYARD_AUDIT_KEY for switchyard audit).",
    );
  }
  if (key !== undefined) {
    if (head.mac === undefined || !sameText(head.mac, headMac(head.entries, head.lastHash, key))) {
      problems.push(
        head.mac === undefined
          ? "the head carries no key, so anyone could have written it"
          : "the head does not match its HMAC under this key (it was changed, or the key is not the log's)",
      );
      return head;
    }
  }
  if (head.entries === entries && head.lastHash === prev) return head;
  // The writer stopped between appending an entry and moving the head: the entry is chained.
  if (head.entries === entries - 1 && last !== undefined && head.lastHash === last.prev) {
    notes.push("the head is one entry behind: the writer stopped between the entry and its head");
    return head;
  }
  problems.push(
    `the head says ${head.entries} entries ending in ${head.lastHash}, but the log holds ${entries} ending in ${prev} (entries were cut from the end, or the log was replaced)`,
  );
  return head;
}
