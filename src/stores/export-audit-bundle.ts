import type { KeyObject } from "node:crypto";
import type { AuditLog, AuditLogHead } from "../agent/approval/audit-log.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { AuditKeyRequiredError, type AuditLogEntry, parseAuditEntry } from "./audit-chain.js";
import { parseAuditPublicKey, publicKeyPem } from "./audit-signing.js";
import { verifyAuditChain } from "./verify-audit-chain.js";

/** Which records a bundle carries: one run's, a time range's, or both at once. */
export interface AuditBundleSelection {
  /** Only this run's records. */
  runId?: string | undefined;
  /** ISO 8601: only records decided at or after this time. */
  since?: string | undefined;
  /** ISO 8601: only records decided before this time. */
  until?: string | undefined;
}

/**
 * An entry a bundle leaves out: its place, link, hash and signature, and
 * the run id and decision time the signature covers, so the bundle proves
 * it is of another run or time without showing its record.
 */
export interface AuditBundleLink {
  seq: number;
  prev: string;
  hash: string;
  runId?: string;
  decidedAt: string;
  signature: string;
}

/**
 * Records of a signed audit trail with what proves them, checkable offline
 * with no secret ({@link verifyAuditBundle}): every entry of the trail up
 * to its head, in order, the selected ones whole (record, hash,
 * signature) and the others as links; the trail's signed head; and the
 * public key. It shows that the selected records are the trail's, unchanged,
 * and that no record of the selection was left out.
 */
export interface AuditBundle {
  format: "switchyard-audit-bundle";
  version: 1;
  /** The log it came from, for people. */
  source: string;
  /** ISO 8601. */
  exportedAt: string;
  selection: AuditBundleSelection;
  /** The trail's Ed25519 public key, SPKI PEM. */
  publicKey: string;
  /** The trail's signed head: the bundle covers its entries. */
  head: AuditLogHead;
  /** Entries 1 to `head.entries`: whole when selected (or unsigned), else links. */
  entries: Array<AuditLogEntry | AuditBundleLink>;
}

/** Whether a record's run and time are in the selection. */
export function inAuditSelection(
  record: { runId?: string | undefined; decidedAt: string },
  selection: AuditBundleSelection,
): boolean {
  if (selection.runId !== undefined && record.runId !== selection.runId) return false;
  const decided = Date.parse(record.decidedAt);
  if (selection.since !== undefined && !(decided >= Date.parse(selection.since))) return false;
  if (selection.until !== undefined && !(decided < Date.parse(selection.until))) return false;
  return true;
}

/** Checks a selection's times; a `ConfigurationError` naming the bad one. */
export function checkAuditSelection(selection: AuditBundleSelection): AuditBundleSelection {
  for (const name of ["since", "until"] as const) {
    const value = selection[name];
    if (value !== undefined && Number.isNaN(Date.parse(value))) {
      throw new ConfigurationError(
        `${name} must be a time in ISO 8601 (e.g. 2026-01-31T00:00:00Z), got ${JSON.stringify(value)}.`,
      );
    }
  }
  return Object.fromEntries(
    Object.entries(selection).filter(([, value]) => value !== undefined),
  ) as AuditBundleSelection;
}

/**
 * Reads a signed audit log whole, checks it under `publicKey`, and makes a
 * bundle of the selected records ({@link AuditBundle}). A log that does
 * not verify, or holds HMAC-keyed entries (which nobody without the key
 * could check), is not exported: that throws, naming the problems.
 *
 * @example
 * const bundle = await exportAuditBundle(auditLog, { publicKey, runId });
 * await writeFile("run.audit.json", JSON.stringify(bundle));
 */
export async function exportAuditBundle(
  log: Pick<AuditLog, "where" | "readTrail">,
  options: AuditBundleSelection & { publicKey: string | KeyObject },
): Promise<AuditBundle> {
  const { publicKey: given, ...rest } = options;
  const selection = checkAuditSelection(rest);
  const publicKey = parseAuditPublicKey(given, "exportAuditBundle's publicKey");
  if (typeof log.readTrail !== "function") {
    throw new ConfigurationError(
      `${log.where} cannot be exported: it has no readTrail() (a JsonlAuditLog or a PostgresAuditLog has).`,
    );
  }
  const trail = await log.readTrail();
  let verification: ReturnType<typeof verifyAuditChain>;
  try {
    verification = verifyAuditChain(trail.entries, trail.head, {
      key: undefined,
      publicKey,
      where: log.where,
    });
  } catch (error) {
    if (!(error instanceof AuditKeyRequiredError)) throw error;
    throw new Error(
      `${log.where} cannot be exported: it holds HMAC-keyed entries, which only the key's holders can check; a bundle carries a trail signed from its start (auditSigningKey)`,
      { cause: error },
    );
  }
  const { head } = verification;
  if (!verification.intact || head === undefined) {
    throw new Error(
      `${log.where} does not verify under this public key, so it is not exported: ${verification.problems.join("; ")}`,
    );
  }
  const entries = trail.entries.slice(0, head.entries).map((text) => {
    const entry = parseAuditEntry(text) as AuditLogEntry;
    if (entry.signature === undefined || inAuditSelection(entry.record, selection)) return entry;
    const { seq, prev, hash, signature, record } = entry;
    const link: AuditBundleLink = { seq, prev, hash, decidedAt: record.decidedAt, signature };
    return record.runId === undefined ? link : { ...link, runId: record.runId };
  });
  return {
    format: "switchyard-audit-bundle",
    version: 1,
    source: log.where,
    exportedAt: new Date().toISOString(),
    selection,
    publicKey: publicKeyPem(publicKey),
    head,
    entries,
  };
}

/** A log's bundle, checked under its public key; a log without one is a `ConfigurationError`. */
export async function exportSigned(
  log: Pick<AuditLog, "where" | "readTrail">,
  publicKey: KeyObject | undefined,
  selection: AuditBundleSelection,
): Promise<AuditBundle> {
  if (publicKey === undefined) {
    throw new ConfigurationError(
      `${log.where} cannot be exported without its public key: give the log publicKey (or auditSigningKey).`,
    );
  }
  return exportAuditBundle(log, { ...selection, publicKey });
}
