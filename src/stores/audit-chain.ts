import { createHash, createHmac, type KeyObject, randomUUID, timingSafeEqual } from "node:crypto";
import { minimumStateKeyLength } from "../agent/agent-options.js";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import { approverChannels } from "../agent/approval/approver-directory.js";
import type { AuditLogHead } from "../agent/approval/audit-log.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { buildOnFirstUse } from "../internal/build-on-first-use.js";
import { canonicalJson } from "../internal/canonical-json.js";
import { loadZod } from "../internal/load-zod.js";
import { checkAnchorCommand } from "./anchor-audit-head.js";
import {
  type AuditSigningKey,
  checkAuditSigningKey,
  parseAuditPublicKey,
  signText,
  verifyText,
} from "./audit-signing.js";

/** The `prev` of the first entry of a log. */
export const auditLogGenesis = `sha256:${"0".repeat(64)}`;

/**
 * One entry of an audit log: the record, its place in the log, the hash of
 * the entry before it, and its own hash over all three (an HMAC-SHA256
 * under the log's key, `hmac-sha256:...`, or a plain SHA-256,
 * `sha256:...`). With a signing key the hash is plain SHA-256 and
 * `signature` is the Ed25519 signature of the entry's hash, number, link,
 * run id and decision time, which anyone can check with the public key.
 */
export interface AuditLogEntry {
  /** 1 for the first entry. */
  seq: number;
  /** The `hash` of the entry before, or `sha256:` and 64 zeros for the first. */
  prev: string;
  record: ApprovalAuditRecord;
  /** Over `prev`, `seq` and the canonical JSON of `record`. */
  hash: string;
  /** `ed25519:` and the base64 Ed25519 signature of the entry's number, link, hash, run id and decision time; absent without a signing key. */
  signature?: string;
}

/** What a writer authenticates its chain with: an HMAC key, an Ed25519 signing key, both or neither. */
export interface AuditChainKeys {
  key: string | undefined;
  signing: AuditSigningKey | undefined;
}

/** Thrown when a keyed or signed log is checked without its key. */
export class AuditKeyRequiredError extends ConfigurationError {
  override name = "AuditKeyRequiredError";
}

/** The checked key options of an audit log: how it writes, checks and anchors its chain. */
export interface AuditLogSettings {
  keys: AuditChainKeys;
  /** What signatures are checked with: the `publicKey` option, else the signing key's public half. */
  publicKey: KeyObject | undefined;
  anchorCommand: string | undefined;
}

/** Checks an audit log's `auditKey`, `auditSigningKey`, `publicKey` and `anchorCommand` options. */
export function checkAuditLogSettings(
  options: {
    auditKey?: unknown;
    auditSigningKey?: unknown;
    publicKey?: unknown;
    anchorCommand?: unknown;
  },
  owner: string,
): AuditLogSettings {
  const signing = checkAuditSigningKey(options.auditSigningKey, owner);
  return {
    keys: { key: checkAuditKey(options.auditKey, owner), signing },
    publicKey:
      options.publicKey !== undefined
        ? parseAuditPublicKey(options.publicKey, `${owner}'s publicKey`)
        : signing?.publicKey,
    anchorCommand: checkAnchorCommand(options.anchorCommand, owner),
  };
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

/** Whether an entry carries an HMAC or a signature (so nobody without a key wrote it). */
export function isAuthenticatedEntry(entry: AuditLogEntry): boolean {
  return entry.signature !== undefined || entry.hash.startsWith("hmac-sha256:");
}

/**
 * The entry that follows `last` (undefined for the first), hashed under
 * the HMAC key or signed with the signing key when given. A keyed or
 * signed chain appended to without its key is a `ConfigurationError`
 * naming the log (`where`): the chain would lose it.
 */
export function nextEntry(
  last: AuditLogEntry | undefined,
  record: ApprovalAuditRecord,
  keys: AuditChainKeys,
  where: string,
): AuditLogEntry {
  if (last && keys.signing === undefined && last.signature !== undefined) {
    throw new ConfigurationError(
      `${where} is signed; appending to it needs its signing key (auditSigningKey, or SWITCHYARD_AUDIT_SIGNING_KEY), or the chain would lose its signatures`,
    );
  }
  if (
    last &&
    keys.key === undefined &&
    keys.signing === undefined &&
    last.hash.startsWith("hmac-sha256:")
  ) {
    throw new ConfigurationError(
      `${where} is keyed; appending to it needs its key (auditKey, or SWITCHYARD_AUDIT_KEY), or the chain would lose it`,
    );
  }
  const seq = (last?.seq ?? 0) + 1;
  const prev = last?.hash ?? auditLogGenesis;
  // A signed entry's hash is plain SHA-256, so anyone with the public key can check it.
  const hash = entryHash(seq, prev, record, keys.signing ? undefined : keys.key);
  if (!keys.signing) return { seq, prev, record, hash };
  const signature = signText(entryStatement({ seq, prev, hash, record }), keys.signing.privateKey);
  return { seq, prev, record, hash, signature };
}

/**
 * What an entry's signature covers: its number, link and hash (which
 * covers the record), and the record's run id and decision time, so a
 * bundle can show an entry left out is of another run or time without
 * showing its record.
 */
export function entryStatement(entry: {
  seq: number;
  prev: string;
  hash: string;
  record: { runId?: string | undefined; decidedAt: string };
}): string {
  const { seq, prev, hash, record } = entry;
  return `switchyard-audit-entry\n${canonicalJson({ seq, prev, hash, runId: record.runId ?? null, decidedAt: record.decidedAt })}`;
}

/** Whether the entry's signature is `publicKey`'s. */
export function entrySignatureHolds(
  entry: Parameters<typeof entryStatement>[0] & { signature?: string | undefined },
  publicKey: KeyObject,
): boolean {
  return (
    entry.signature !== undefined && verifyText(entryStatement(entry), entry.signature, publicKey)
  );
}

/** The hash an entry must carry: HMAC-SHA256 under `key`, else plain SHA-256. */
export function entryHash(
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

/**
 * The head of a chain of `entries` ending in `lastHash`, carrying on the
 * chain's id and start from the head before, with its MAC and signature
 * when there are keys.
 */
export function chainHead(
  entries: number,
  lastHash: string,
  keys: AuditChainKeys,
  before: AuditLogHead | undefined,
): AuditLogHead {
  const head: AuditLogHead = {
    entries,
    lastHash,
    ...(before?.chain !== undefined ? { chain: before.chain } : {}),
    ...(before?.startedAt !== undefined ? { startedAt: before.startedAt } : {}),
  };
  return authenticateHead(head, keys);
}

/** The head of a trail that begins now: 0 entries, a new chain id, keyed and signed. */
export function genesisHead(keys: AuditChainKeys): AuditLogHead {
  return authenticateHead(
    {
      entries: 0,
      lastHash: auditLogGenesis,
      chain: `chain_${randomUUID()}`,
      startedAt: new Date().toISOString(),
    },
    keys,
  );
}

function authenticateHead(head: AuditLogHead, keys: AuditChainKeys): AuditLogHead {
  return {
    ...head,
    ...(keys.key !== undefined ? { mac: headMac(head, keys.key) } : {}),
    ...(keys.signing ? { signature: signText(headStatement(head), keys.signing.privateKey) } : {}),
  };
}

/** What a head's signature covers: its count, last hash, chain and start. */
export function headStatement(head: AuditLogHead): string {
  const { entries, lastHash } = head;
  return `switchyard-audit-head\n${canonicalJson({ entries, lastHash, chain: head.chain ?? null, startedAt: head.startedAt ?? null })}`;
}

function headMac(head: AuditLogHead, key: string): string {
  // Heads written before chain ids keep the MAC they were written with.
  const content =
    head.chain === undefined
      ? `head\n${head.entries}\n${head.lastHash}`
      : `head\n${head.entries}\n${head.lastHash}\n${head.chain}\n${head.startedAt ?? ""}`;
  return `hmac-sha256:${createHmac("sha256", key).update(content, "utf8").digest("hex")}`;
}

/** Whether the head's MAC is `key`'s. */
export function headMacHolds(head: AuditLogHead, key: string): boolean {
  return head.mac !== undefined && sameText(head.mac, headMac(head, key));
}

/** Whether the head's signature is `publicKey`'s. */
export function headSignatureHolds(head: AuditLogHead, publicKey: KeyObject): boolean {
  return head.signature !== undefined && verifyText(headStatement(head), head.signature, publicKey);
}

/** Whether an entry's hash and signature (or HMAC) are what these keys make of its content. */
function writtenWith(entry: AuditLogEntry, keys: AuditChainKeys): boolean {
  if (entry.signature !== undefined) {
    return (
      keys.signing !== undefined &&
      entry.hash === entryHash(entry.seq, entry.prev, entry.record, undefined) &&
      entrySignatureHolds(entry, keys.signing.publicKey)
    );
  }
  return (
    keys.key !== undefined &&
    entry.hash.startsWith("hmac-sha256:") &&
    sameText(entry.hash, entryHash(entry.seq, entry.prev, entry.record, keys.key))
  );
}

/** Compares two texts in constant time. */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Before a writer chains onto a stored trail: what the trail's head is,
 * and whether the trail must begin (a genesis head written). With a key or
 * a signing key the writer never chains onto a trail whose end it cannot
 * vouch for: a head it did not write (no MAC or signature of its keys), a
 * head that does not match the last entry (entries cut, or the head
 * replaced), keyed entries without a head, or a trail that held entries
 * and was emptied (`emptied`: the file is there but empty, or the head
 * row is gone). Each throws, naming the log (`where`), and the decision
 * is then not recorded (its call does not run).
 */
export function checkTrailEnd(
  storedHead: unknown,
  last: AuditLogEntry | undefined,
  keys: AuditChainKeys,
  where: string,
  emptied: boolean,
): { head: AuditLogHead | undefined; begin: boolean } {
  const authenticated = keys.key !== undefined || keys.signing !== undefined;
  const check = `check it with switchyard audit verify, keep it as evidence, and start a new trail elsewhere (another file, or another schema)`;
  if (storedHead === undefined) {
    if (!authenticated) return { head: undefined, begin: false };
    if (last === undefined) {
      if (emptied) {
        throw new Error(
          `${where} holds no entries and no head, yet was begun (it was emptied): a keyed or signed trail always keeps a head; ${check}`,
        );
      }
      return { head: undefined, begin: true };
    }
    if (isAuthenticatedEntry(last)) {
      throw new Error(
        `${where} has keyed or signed entries but no head (it was removed, so entries cut from the end could not be seen); ${check}`,
      );
    }
    // A log written before keys and heads: keying it from here on is allowed.
    return { head: undefined, begin: false };
  }
  const head = parseAuditHead(storedHead);
  if ("problem" in head) throw new Error(`${where}: ${head.problem}; ${check}`);
  if (head.signature !== undefined && keys.signing === undefined) {
    throw new ConfigurationError(
      `${where} is signed; appending to it needs its signing key (auditSigningKey, or SWITCHYARD_AUDIT_SIGNING_KEY)`,
    );
  }
  if (head.mac !== undefined && head.signature === undefined && keys.key === undefined) {
    throw new ConfigurationError(
      `${where} is keyed; appending to it needs its key (auditKey, or SWITCHYARD_AUDIT_KEY; beside the signing key, to go on signed), or the chain would lose it`,
    );
  }
  const vouched =
    (head.signature !== undefined &&
      keys.signing !== undefined &&
      headSignatureHolds(head, keys.signing.publicKey)) ||
    (head.signature === undefined &&
      head.mac !== undefined &&
      keys.key !== undefined &&
      headMacHolds(head, keys.key));
  const forged =
    (head.signature !== undefined && !vouched) ||
    (head.mac !== undefined && keys.key !== undefined && !headMacHolds(head, keys.key));
  if (forged) {
    throw new Error(
      `${where}: its head does not carry this writer's signature or MAC (it was changed, or written with another key); ${check}`,
    );
  }
  if (authenticated && !vouched && (last === undefined || isAuthenticatedEntry(last))) {
    throw new Error(
      `${where}: its head carries no key or signature, so anyone could have written it; ${check}`,
    );
  }
  const entries = last?.seq ?? 0;
  const lastHash = last?.hash ?? auditLogGenesis;
  const matches = head.entries === entries && head.lastHash === lastHash;
  // The writer stopped between an entry and its head: the entry is chained, and the next head covers it.
  const oneBehind =
    last !== undefined && head.entries === entries - 1 && head.lastHash === last.prev;
  if (!matches && !oneBehind) {
    throw new Error(
      `${where} does not end where its head says (entry ${head.entries}, but the last entry is ${entries}); ${check}`,
    );
  }
  // An entry past the head is vouched for by nothing but itself: it must be this writer's.
  if (oneBehind && authenticated && !writtenWith(last, keys)) {
    throw new Error(
      `${where} ends with an entry past its head that does not carry this writer's signature or MAC (it was added by someone else); ${check}`,
    );
  }
  return { head, begin: false };
}

const schemas = buildOnFirstUse(() => {
  const { z } = loadZod();
  const text = z.string();
  const channel = z.enum(approverChannels);
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
    answeredBy: z.strictObject({ channel: channel, id: text }).optional(),
    people: z
      .array(z.strictObject({ id: text, name: text, channel: channel, evidence: text }))
      .optional(),
    requestedAt: text,
    decidedAt: text,
  });
  const entry = z.strictObject({
    seq: z.number().int().positive(),
    prev: text,
    record,
    hash: text,
    signature: text.optional(),
  });
  const head = z.strictObject({
    entries: z.number().int().nonnegative(),
    lastHash: text,
    mac: text.optional(),
    signature: text.optional(),
    chain: text.optional(),
    startedAt: text.optional(),
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
  return parseAuditEntryValue(value);
}

/** Checks a parsed value is an entry; a description of what is wrong when it is not one. */
export function parseAuditEntryValue(value: unknown): AuditLogEntry | { problem: string } {
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
  return { problem: "the head is not { entries, lastHash, mac?, signature?, chain?, startedAt? }" };
}
