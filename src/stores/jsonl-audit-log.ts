import { mkdir, open, readFile, rename, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import type { AuditLog, AuditLogVerification } from "../agent/approval/audit-log.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import {
  type AuditLogEntry,
  auditLogGenesis,
  chainHead,
  checkAuditKey,
  nextEntry,
  parseAuditEntry,
  verifyAuditChain,
} from "./audit-chain.js";
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
}

/**
 * An append-only, hash-chained JSON Lines file of approval decisions: each
 * line holds one `ApprovalAuditRecord`, its number and the hash of the line
 * before, so changing, removing or reordering a line breaks the chain. The
 * head (how many lines, and the last hash) is rewritten atomically beside
 * it after each append, in `<path>.head`, so lines cut from the end are
 * caught. With `auditKey` the hashes and the head are HMAC-SHA256 under the
 * key, and only its holder can write a chain that verifies. Each append is
 * flushed to disk before it resolves; appends from several processes take
 * turns through a lock file (`<path>.lock`).
 *
 * @example
 * const auditLog = new JsonlAuditLog({ path: "audit.jsonl", auditKey: process.env.SWITCHYARD_AUDIT_KEY });
 * const agent = new Agent({ model, tools, approver, auditLog });
 */
export class JsonlAuditLog implements AuditLog {
  /** Absolute path of the file. */
  readonly path: string;
  /** Absolute path of the head file. */
  readonly headPath: string;
  readonly #key: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: JsonlAuditLogOptions) {
    if (typeof options?.path !== "string" || options.path.trim() === "") {
      throw new ConfigurationError(
        'JsonlAuditLog needs { path }, the file the audit records are appended to, e.g. { path: ".switchyard/audit.jsonl" }',
      );
    }
    this.path = resolve(options.path);
    this.headPath = `${this.path}.head`;
    this.#key = checkAuditKey(options.auditKey, "JsonlAuditLog");
  }

  /** The file, for messages. */
  get where(): string {
    return this.path;
  }

  /** Appends one record, chained to the file's last line, then moves the head. */
  append(record: ApprovalAuditRecord): Promise<void> {
    const next = this.#queue.then(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      return withLockFile(
        `${this.path}.lock`,
        { operation: "append", subject: `the audit log ${this.path}` },
        () => this.#append(record),
      );
    });
    this.#queue = next.catch(() => {});
    return next;
  }

  async #append(record: ApprovalAuditRecord): Promise<void> {
    const last = lastEntry(await readText(this.path), this.path);
    const entry = nextEntry(last, record, this.#key, `the audit log ${this.path}`);
    const handle = await open(this.path, "a", 0o600);
    try {
      await handle.write(`${JSON.stringify(entry)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await writeHead(this.headPath, chainHead(entry.seq, entry.hash, this.#key));
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
   * Checks the chain and the head. A missing file is a problem (an empty
   * one is intact); a keyed log without the key throws a `ConfigurationError`.
   */
  async verify(): Promise<AuditLogVerification> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
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
    return verifyAuditChain(all, await readHead(this.headPath), {
      key: this.#key,
      where: `the audit log ${this.path}`,
      problems,
    });
  }
}

/**
 * Reads an audit log file and checks its chain and head (see
 * {@link JsonlAuditLog.verify}); `auditKey` is the log's key, when it has one.
 */
export function verifyAuditLog(
  path: string,
  options: { auditKey?: string | undefined } = {},
): Promise<AuditLogVerification> {
  return new JsonlAuditLog({ path, auditKey: options.auditKey }).verify();
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
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
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
