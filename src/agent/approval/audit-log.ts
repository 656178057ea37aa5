import type { ApprovalAuditLog, ApprovalAuditRecord } from "./approval-audit-record.js";

/**
 * Where the chain ends: how many entries it holds and the last one's hash,
 * kept apart from the entries (a `<log>.head` file, a database row) so that
 * entries cut from the end are caught. With a key it carries `mac`, an
 * HMAC-SHA256 of both, so nobody without the key can write a head that
 * matches a shortened log.
 */
export interface AuditLogHead {
  entries: number;
  /** The last entry's `hash` (the genesis hash when there are none). */
  lastHash: string;
  /** `hmac-sha256:` of `entries` and `lastHash` under the log's key; absent without a key. */
  mac?: string;
}

/** What {@link AuditLog.verify} found. */
export interface AuditLogVerification {
  /**
   * True when every entry is whole, of a known shape, in order, chained to
   * the one before, hashed as it says, and the head matches: with a key,
   * every keyed hash is the key's.
   */
  intact: boolean;
  /**
   * What the chain can show. `keyed`: every entry (after any written before
   * a key was set) and the head carry an HMAC under the key, so a change by
   * anyone without the key is caught. `unkeyed`: plain SHA-256 hashes, which
   * show accidental damage but not forgery (anyone can recompute them).
   * `empty`: no entries.
   */
  chain: "keyed" | "unkeyed" | "empty";
  /** Entries read. */
  entries: number;
  /** The last entry's hash: also kept in the head. */
  lastHash: string;
  /** The head the log kept, when there is one. */
  head: AuditLogHead | undefined;
  /** One line per problem, naming the entry (1-based). */
  problems: string[];
  /** What the operator should know that is not a problem (e.g. entries written before a key was set). */
  notes: string[];
  /** The records, in order (those of entries that could be read). */
  records: ApprovalAuditRecord[];
}

/**
 * An append-only, hash-chained audit log of approval decisions: the
 * contract a `JsonlAuditLog` (a file) and a `PostgresAuditLog` (a table
 * beside the PostgreSQL run store) keep, and `switchyard audit` reads. The
 * agent needs only `append`; `read` and `verify` are for people checking
 * the trail.
 */
export interface AuditLog extends ApprovalAuditLog {
  /** For messages: the file, or the database and schema. */
  readonly where: string;
  /** Appends one record, chained to the last, and moves the head in the same write. */
  append(record: ApprovalAuditRecord): Promise<void>;
  /** The records in order, optionally only one run's; throws on an entry of an unknown shape. */
  read(options?: { runId?: string }): Promise<ApprovalAuditRecord[]>;
  /** Checks the whole chain and its head. */
  verify(): Promise<AuditLogVerification>;
}
