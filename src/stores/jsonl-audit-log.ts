import { createHash } from "node:crypto";
import { mkdir, open, readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type {
  ApprovalAuditLog,
  ApprovalAuditRecord,
} from "../agent/approval/approval-audit-record.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { canonicalJson } from "../internal/canonical-json.js";

/** The `prev` of the first entry of a log. */
export const auditLogGenesis = `sha256:${"0".repeat(64)}`;

/**
 * One line of a {@link JsonlAuditLog}: the record, its place in the log,
 * the hash of the line before it, and its own hash over all three.
 */
export interface AuditLogEntry {
  /** 1 for the first line. */
  seq: number;
  /** The `hash` of the line before, or {@link auditLogGenesis} for the first. */
  prev: string;
  record: ApprovalAuditRecord;
  /** `sha256:` of `prev`, `seq` and the canonical JSON of `record`. */
  hash: string;
}

/** What {@link verifyAuditLog} found. */
export interface AuditLogVerification {
  /** True when every line is whole, in order, and chained to the one before. */
  intact: boolean;
  /** Lines read. */
  entries: number;
  /** The last line's hash: keep it elsewhere to detect lines cut from the end later. */
  lastHash: string;
  /** One line per problem, naming the line number (1-based). */
  problems: string[];
  /** The records, in order (those of lines that could be read). */
  records: ApprovalAuditRecord[];
}

/**
 * An append-only, hash-chained JSON Lines file of approval decisions: each
 * line holds one `ApprovalAuditRecord` and the hash of the line before, so
 * changing, removing or reordering any line breaks the chain, which
 * `verifyAuditLog` (and `switchyard audit verify`) reports. Each append is
 * flushed to disk before it resolves. Appends from one process are kept in
 * order; give each process its own file.
 *
 * @example
 * const agent = new Agent({ model, tools, approver, auditLog: new JsonlAuditLog({ path: "audit.jsonl" }) });
 */
export class JsonlAuditLog implements ApprovalAuditLog {
  /** Absolute path of the file. */
  readonly path: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: { path: string }) {
    if (typeof options?.path !== "string" || options.path.trim() === "") {
      throw new ConfigurationError(
        'JsonlAuditLog needs { path }, the file the audit records are appended to, e.g. { path: ".switchyard/audit.jsonl" }',
      );
    }
    this.path = resolve(options.path);
  }

  /** Appends one record, chained to the file's last line. */
  append(record: ApprovalAuditRecord): Promise<void> {
    const next = this.#queue.then(() => this.#append(record));
    this.#queue = next.catch(() => {});
    return next;
  }

  async #append(record: ApprovalAuditRecord): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    const last = lastEntry(await readText(this.path), this.path);
    const seq = (last?.seq ?? 0) + 1;
    const prev = last?.hash ?? auditLogGenesis;
    const entry: AuditLogEntry = { seq, prev, record, hash: entryHash(seq, prev, record) };
    const handle = await open(this.path, "a", 0o600);
    try {
      await handle.write(`${JSON.stringify(entry)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

/**
 * Reads an audit log and checks its chain: each line is JSON with the
 * entry's fields, numbered in order, its `prev` the hash of the line
 * before, and its `hash` the hash of its own content. A missing file is a
 * problem; an empty one is intact with no entries.
 */
export async function verifyAuditLog(path: string): Promise<AuditLogVerification> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      intact: false,
      entries: 0,
      lastHash: auditLogGenesis,
      problems: [
        code === "ENOENT"
          ? `${path}: no such file`
          : `${path}: cannot be read (${(error as Error).message})`,
      ],
      records: [],
    };
  }
  const problems: string[] = [];
  const records: ApprovalAuditRecord[] = [];
  let prev = auditLogGenesis;
  let entries = 0;
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  else if (lines.length > 0)
    problems.push(`line ${lines.length}: the last line is not whole (no line end)`);
  lines.forEach((line, index) => {
    const number = index + 1;
    entries++;
    let entry: AuditLogEntry;
    try {
      entry = JSON.parse(line) as AuditLogEntry;
    } catch {
      problems.push(`line ${number}: not JSON`);
      prev = "";
      return;
    }
    if (typeof entry !== "object" || entry === null || typeof entry.record !== "object") {
      problems.push(`line ${number}: not an audit entry (seq, prev, record, hash)`);
      prev = "";
      return;
    }
    records.push(entry.record);
    if (entry.seq !== number)
      problems.push(
        `line ${number}: numbered ${String(entry.seq)}, expected ${number} (a line was removed or moved)`,
      );
    if (entry.prev !== prev)
      problems.push(
        `line ${number}: does not follow the line before (its prev is not that line's hash)`,
      );
    if (entry.hash !== entryHash(entry.seq, entry.prev, entry.record)) {
      problems.push(`line ${number}: its content does not match its hash (the line was changed)`);
    }
    prev = typeof entry.hash === "string" ? entry.hash : "";
  });
  return { intact: problems.length === 0, entries, lastHash: prev, problems, records };
}

function entryHash(seq: number, prev: string, record: ApprovalAuditRecord): string {
  const digest = createHash("sha256")
    .update(`${prev}\n${seq}\n${canonicalJson(record)}`, "utf8")
    .digest("hex");
  return `sha256:${digest}`;
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
  const line = trimmed.slice(trimmed.lastIndexOf("\n") + 1);
  try {
    const entry = JSON.parse(line) as AuditLogEntry;
    if (typeof entry.seq === "number" && typeof entry.hash === "string") return entry;
  } catch {
    // reported below
  }
  throw new Error(
    `the audit log ${path} ends with a line that is not an audit entry; check it with switchyard audit verify ${path}`,
  );
}
