import type { KeyObject } from "node:crypto";
import { mkdir, open, readFile, rename, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import type { AuditLog, AuditLogHead, AuditLogVerification } from "../agent/approval/audit-log.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { componentLogger, type Logger } from "../internal/logger.js";
import { anchorAuditHead } from "./anchor-audit-head.js";
import {
  type AuditChainKeys,
  type AuditLogEntry,
  auditLogGenesis,
  chainHead,
  checkAuditLogSettings,
  checkTrailEnd,
  genesisHead,
  nextEntry,
  parseAuditEntry,
} from "./audit-chain.js";
import {
  type AuditBundle,
  type AuditBundleSelection,
  exportSigned,
} from "./export-audit-bundle.js";
import { verifyAuditBundle } from "./verify-audit-bundle.js";
import { verifyAuditChain } from "./verify-audit-chain.js";
import { withLockFile } from "./with-lock-file.js";

export type { AuditLogVerification } from "../agent/approval/audit-log.js";
export { type AuditLogEntry, auditLogGenesis } from "./audit-chain.js";

/** What a {@link JsonlAuditLog} is given. */
export interface JsonlAuditLogOptions {
  /** The file the entries are appended to; its head is kept beside it, in `<path>.head`. */
  path: string;
  /**
   * The key of the chain (at least 32 characters, e.g. `openssl rand -hex 32`):
   * each entry's hash and the head are an HMAC-SHA256 under it, so nobody
   * without it can change, remove or recompute entries unnoticed. Without a
   * key the hashes are plain SHA-256: they show accidental damage, not
   * forgery. Keep the key out of the log's directory.
   * @default none
   */
  auditKey?: string | undefined;
  /**
   * The Ed25519 private key that signs the chain (PKCS#8 PEM text, line
   * breaks may be written `\n`, or a `KeyObject`; make one with
   * `switchyard audit keygen` or `openssl genpkey -algorithm ed25519`):
   * each entry and each head carry a signature anyone can check with the
   * public key alone, and nobody without the private key can write one.
   * Keep it with the agent, never beside the log.
   * @default none
   */
  auditSigningKey?: string | KeyObject | undefined;
  /**
   * The public key a signed log is checked with (SPKI PEM text or a
   * `KeyObject`), for a reader that does not hold the signing key.
   * @default the public half of `auditSigningKey`
   */
  publicKey?: string | KeyObject | undefined;
  /**
   * A shell command (`/bin/sh -c`) that receives each head the log writes,
   * as one line of JSON on its stdin, to keep a copy where the writer of
   * the log cannot rewrite it (another machine, a write-once bucket). It
   * runs once the entry and its head are stored, so a head it does not
   * take (exit other than 0) does not fail the append: it is a warning to
   * `logger` (else a process warning), and the next head anchored covers it.
   * @default none
   */
  anchorCommand?: string | undefined;
  /** Where an anchor that failed is reported (a pino logger, `warn`). @default a process warning */
  logger?: Logger | undefined;
}

/**
 * An append-only, hash-chained JSON Lines file of approval decisions: each
 * line holds one `ApprovalAuditRecord`, its number and the hash of the line
 * before, so changing, removing or reordering a line breaks the chain. The
 * head (how many lines, and the last hash) is rewritten atomically beside
 * it after each append, in `<path>.head`, so lines cut from the end are
 * caught. With `auditSigningKey` each line and head is signed with Ed25519,
 * and anyone with the public key can check it; with `auditKey` the hashes
 * and the head are HMAC-SHA256 under the key. Either way only the key's
 * holder can write a chain that verifies, the trail begins with a signed
 * (or keyed) head of 0 entries, and a trail emptied or without its head
 * does not verify. `anchorCommand` hands each head to a command that keeps
 * it elsewhere. Each append is flushed to disk before it resolves; appends
 * from several processes take turns through a lock file (`<path>.lock`).
 *
 * @example
 * const auditLog = new JsonlAuditLog({
 *   path: "audit.jsonl",
 *   auditSigningKey: process.env.SWITCHYARD_AUDIT_SIGNING_KEY,
 * });
 * const agent = new Agent({ model, tools, approver, auditLog });
 * // An auditor, with the public key only:
 * await verifyAuditLog("audit.jsonl", { publicKey: await readFile("audit-signing-key.pub.pem", "utf8") });
 */
export class JsonlAuditLog implements AuditLog {
  /** Absolute path of the file. */
  readonly path: string;
  /** Absolute path of the head file. */
  readonly headPath: string;
  readonly #keys: AuditChainKeys;
  readonly #publicKey: KeyObject | undefined;
  readonly #anchorCommand: string | undefined;
  readonly #logger: Logger | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: JsonlAuditLogOptions) {
    if (typeof options?.path !== "string" || options.path.trim() === "") {
      throw new ConfigurationError(
        'JsonlAuditLog needs { path }, the file the audit records are appended to, e.g. { path: ".switchyard/audit.jsonl" }',
      );
    }
    this.path = resolve(options.path);
    this.headPath = `${this.path}.head`;
    const settings = checkAuditLogSettings(options, "JsonlAuditLog");
    this.#keys = settings.keys;
    this.#publicKey = settings.publicKey;
    this.#anchorCommand = settings.anchorCommand;
    this.#logger = options.logger ? componentLogger(options.logger, "audit-log") : undefined;
  }

  /** The file, for messages. */
  get where(): string {
    return this.path;
  }

  /** Appends one record, chained to the file's last line, then moves the head. */
  append(record: ApprovalAuditRecord): Promise<void> {
    return this.#locked("append", async () => {
      const { last, head } = await this.#begin();
      const entry = nextEntry(last, record, this.#keys, `the audit log ${this.path}`);
      const handle = await open(this.path, "a", 0o600);
      try {
        await handle.write(`${JSON.stringify(entry)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.#moveHead(chainHead(entry.seq, entry.hash, this.#keys, head));
    });
  }

  /**
   * Begins the trail when it has not begun: with a key or a signing key,
   * writes the head of 0 entries (keyed, signed, naming a new chain), so an
   * empty trail verifies. Throws when the trail's end is not one this
   * writer can vouch for (see `append`). `append` does it on first use.
   */
  open(): Promise<void> {
    return this.#locked("open", async () => {
      await this.#begin();
    });
  }

  /**
   * A bundle of the selected records (one run's, a time range's, or all)
   * with their signatures, the signed head and the public key, which
   * `verifyAuditLog` (or `switchyard audit verify`) checks offline with no
   * secret. The log must be signed and verify under its public key (the
   * `publicKey` option, else the signing key's), or this throws.
   */
  exportBundle(selection: AuditBundleSelection = {}): Promise<AuditBundle> {
    return exportSigned(this, this.#publicKey, selection);
  }

  /** The lines and the head, as stored. */
  async readTrail(): Promise<{ entries: string[]; head: unknown }> {
    return { entries: lines(await readText(this.path)), head: await readHead(this.headPath) };
  }

  #locked(operation: string, body: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      return withLockFile(
        `${this.path}.lock`,
        { operation, subject: `the audit log ${this.path}` },
        body,
      );
    });
    this.#queue = next.catch(() => {});
    return next;
  }

  /** The last entry and the head, checked; a trail never begun with a key begins here. */
  async #begin(): Promise<{ last: AuditLogEntry | undefined; head: AuditLogHead | undefined }> {
    const text = await readTextIfAny(this.path);
    const last = lastEntry(text ?? "", this.path);
    const checked = checkTrailEnd(
      await readHead(this.headPath),
      last,
      this.#keys,
      `the audit log ${this.path}`,
      text !== null,
    );
    if (!checked.begin) return { last, head: checked.head };
    const genesis = genesisHead(this.#keys);
    await this.#moveHead(genesis);
    // The head first: a writer stopped between the two leaves a trail that verifies.
    await (await open(this.path, "a", 0o600)).close();
    return { last, head: genesis };
  }

  async #moveHead(head: AuditLogHead): Promise<void> {
    await writeHead(this.headPath, head);
    if (this.#anchorCommand !== undefined)
      await anchorAuditHead(this.#anchorCommand, head, this.#logger);
  }

  /** The records in order, optionally one run's; throws on a line of an unknown shape. */
  async read(options: { runId?: string } = {}): Promise<ApprovalAuditRecord[]> {
    const records: ApprovalAuditRecord[] = [];
    for (const [index, line] of lines(await readText(this.path)).entries()) {
      const entry = parseAuditEntry(line);
      if ("problem" in entry) {
        throw new Error(`${this.path}, line ${index + 1}: ${entry.problem}`);
      }
      if (options.runId === undefined || entry.record.runId === options.runId) {
        records.push(entry.record);
      }
    }
    return records;
  }

  /**
   * Checks the chain and the head, and with `anchor` (a head kept
   * elsewhere) that the trail still holds what it names. A missing file is
   * a problem, unless its head says the trail is empty; a keyed log without
   * the key, or a signed one without the public key, throws a
   * `ConfigurationError`.
   */
  async verify(options: { anchor?: unknown } = {}): Promise<AuditLogVerification> {
    const head = await readHead(this.headPath);
    let text: string;
    try {
      // A trail opened but never appended to has its genesis head and no file yet.
      text = head === undefined ? await readFile(this.path, "utf8") : await readText(this.path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        intact: false,
        chain: "empty",
        entries: 0,
        lastHash: auditLogGenesis,
        head: undefined,
        problems: [
          code === "ENOENT"
            ? `${this.path}: no such file`
            : `${this.path}: cannot be read (${(error as Error).message})`,
        ],
        notes: [],
        records: [],
      };
    }
    const problems: string[] = [];
    const all = text.split("\n");
    if (all.at(-1) === "") all.pop();
    else if (all.length > 0) {
      problems.push(`entry ${all.length}: the last line is not whole (no line end)`);
    }
    return verifyAuditChain(all, head, {
      key: this.#keys.key,
      publicKey: this.#publicKey,
      where: `the audit log ${this.path}`,
      problems,
      ...(options.anchor !== undefined ? { anchor: options.anchor } : {}),
    });
  }
}

/**
 * Checks an audit trail: a log file's chain and head (see
 * {@link JsonlAuditLog.verify}), or a bundle `switchyard audit export`
 * or `exportBundle` made, given as its file or as its parsed JSON, offline:
 * every record it carries matches its hash and signature, every entry it
 * leaves out is of another run or time, and the signed head covers them
 * all. `auditKey` is the log's HMAC key, when it has one; `publicKey` the
 * public key of its signing key (for a bundle, the agent's key as you hold
 * it: a bundle signed with another key then fails; without it, the key
 * the bundle carries is used, and a note says so); `anchor` a head of the
 * trail kept elsewhere.
 *
 * @example
 * const publicKey = await readFile("audit-signing-key.pub.pem", "utf8");
 * const log = await verifyAuditLog("audit.jsonl", { publicKey });
 * const bundle = await verifyAuditLog(JSON.parse(await readFile("run.audit.json", "utf8")), { publicKey });
 */
export async function verifyAuditLog(
  pathOrBundle: string | object,
  options: {
    auditKey?: string | undefined;
    publicKey?: string | KeyObject | undefined;
    anchor?: unknown;
  } = {},
): Promise<AuditLogVerification> {
  const { anchor, ...keys } = options;
  const bundle =
    typeof pathOrBundle === "string" ? await readAuditBundle(pathOrBundle) : pathOrBundle;
  if (bundle !== undefined) return verifyAuditBundle(bundle, { publicKey: keys.publicKey });
  return new JsonlAuditLog({ path: pathOrBundle as string, ...keys }).verify(
    anchor !== undefined ? { anchor } : {},
  );
}

/** The file's JSON when it is an audit bundle; undefined when it is anything else (a log). */
export async function readAuditBundle(path: string): Promise<object | undefined> {
  const text = await readTextIfAny(path);
  if (text === null || !text.trimStart().startsWith("{")) return undefined;
  try {
    const value = JSON.parse(text) as { format?: unknown } | null;
    return value?.format === "switchyard-audit-bundle" ? value : undefined;
  } catch {
    // A log of one line is JSON too, but not a bundle; a torn file is the log's problem.
    return undefined;
  }
}

/** Whether `path` exists (a file to verify, as opposed to a typo). */
export async function auditLogExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Writes the head to a temporary file, flushes it and renames it over the old one. */
async function writeHead(path: string, head: object): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  const handle = await open(temporary, "w", 0o600);
  try {
    await handle.write(`${JSON.stringify(head)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

async function readHead(path: string): Promise<unknown> {
  const text = await readText(path);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return { unreadable: true };
  }
}

function lines(text: string): string[] {
  const all = text.split("\n");
  if (all.at(-1) === "") all.pop();
  return all;
}

async function readText(path: string): Promise<string> {
  return (await readTextIfAny(path)) ?? "";
}

/** The file's text, or null when there is no file. */
async function readTextIfAny(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** The last line's entry; an unreadable last line stops the append (never chain onto a broken log). */
function lastEntry(text: string, path: string): AuditLogEntry | undefined {
  const trimmed = text.trimEnd();
  if (trimmed === "") return undefined;
  const entry = parseAuditEntry(trimmed.slice(trimmed.lastIndexOf("\n") + 1));
  if (!("problem" in entry)) return entry;
  throw new Error(
    `the audit log ${path} ends with a line that is not an audit entry (${entry.problem}); check it with switchyard audit verify ${path}`,
  );
}
