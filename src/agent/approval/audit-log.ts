import type { ApprovalAuditLog, ApprovalAuditRecord } from "./approval-audit-record.js";

/**
 * Where the chain ends: how many entries it holds and the last one's hash,
 * kept apart from the entries (a `<log>.head` file, a database row) so that
 * entries cut from the end are caught. With a key it carries `mac`, an
 * HMAC-SHA256 of it; with a signing key, `signature`, an Ed25519 signature
 * anyone can check with the public key. Nobody without the key can write a
 * head that matches a shortened log. A trail begun with a key starts with
 * a head of 0 entries (its genesis), naming the chain and when it began.
 */
export interface AuditLogHead {
  entries: number;
  /** The last entry's `hash` (the genesis hash when there are none). */
  lastHash: string;
  /** `hmac-sha256:` of the head under the log's key; absent without a key. */
  mac?: string;
  /** `ed25519:` signature of the head under the log's signing key; absent without one. */
  signature?: string;
  /** The chain's id, minted when the trail began (`chain_` and a UUID); absent on trails begun before ids. */
  chain?: string;
  /** ISO 8601: when the chain began. */
  startedAt?: string;
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
   * What the chain can show. `signed`: every entry (after any written
   * before a key was set) and the head carry an Ed25519 signature that the
   * public key checks, so a change by anyone without the signing key is
   * caught, and anyone can check it. `keyed`: the same with an HMAC under
   * the key, which only the key's holders can check. `unkeyed`: plain
   * SHA-256 hashes, which show accidental damage but not forgery (anyone
   * can recompute them). `empty`: no entries.
   */
  chain: "signed" | "keyed" | "unkeyed" | "empty";
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
  /** The records, in order (those of entries that could be read; of a bundle, the selected ones). */
  records: ApprovalAuditRecord[];
  /** `sha256:` of the Ed25519 public key the signatures were checked with, when they were. */
  publicKey?: string;
  /**
   * Of a bundle: true when everything holds under the key it was checked
   * with. Without a public key given, that is the key the bundle carries,
   * which anyone can sign with, so the bundle is `consistent` but never
   * `intact`.
   */
  consistent?: boolean;
  /** Of a bundle checked without a public key: `sha256:` of the SPKI DER of the key it carries, to compare with the agent's. */
  unverifiedKey?: string;
  /** Of a bundle: which records it says it carries (one run's, a time range's). */
  selection?: {
    runId?: string | undefined;
    since?: string | undefined;
    until?: string | undefined;
  };
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
  /**
   * Checks the whole chain and its head; with `anchor` (a head of the trail
   * kept elsewhere), also that the trail is still that chain and holds the
   * entries it names.
   */
  verify(options?: { anchor?: unknown }): Promise<AuditLogVerification>;
  /**
   * Begins the trail when it has not begun: with a key or a signing key,
   * writes the keyed or signed head of 0 entries (its genesis), so an empty
   * trail verifies and one emptied later does not. `append` does it on first
   * use; calling it again does nothing.
   */
  open?(): Promise<void>;
  /** The stored entries (one JSON text each, in order) and the stored head, read at one moment: what an export bundles. */
  readTrail?(): Promise<{ entries: string[]; head: unknown }>;
}
