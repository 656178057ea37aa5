import type { KeyObject } from "node:crypto";
import { join, resolve } from "node:path";
import { minimumStateKeyLength } from "../agent/agent-options.js";
import { checkAuditSigningKey } from "../stores/audit-signing.js";
import { FileRunStore } from "../stores/file-run-store.js";
import { JsonlAuditLog } from "../stores/jsonl-audit-log.js";
import { PostgresAuditLog } from "../stores/postgres-audit-log.js";
import type { CliIo } from "./cli-io.js";
import { CliRunRecords } from "./cli-run-records.js";
import { CommandError, usageError } from "./command-error.js";
import { exitCodes } from "./exit-codes.js";

/** Where the command keeps durable runs: the saved states and its own records of them. */
export interface StateDirectory {
  /** Absolute. */
  directory: string;
  /** The run states, in `runs/`. */
  store: FileRunStore;
  /** Which example each run belongs to, in `cli/`. */
  records: CliRunRecords;
}

/**
 * Opens the state directory `SWITCHYARD_STATE_DIR` names (relative to the
 * working directory), or `.switchyard` in the working directory. Nothing
 * is created until a run is saved.
 */
export function openStateDirectory(env: CliIo["env"]): StateDirectory {
  const named = env.SWITCHYARD_STATE_DIR?.trim();
  const directory = resolve(named ? named : join(process.cwd(), ".switchyard"));
  return {
    directory,
    store: new FileRunStore({ directory }),
    records: new CliRunRecords(directory),
  };
}

/**
 * `SWITCHYARD_STATE_KEY`, the key sealing saved runs (see `docs/security.md`),
 * or `undefined` when unset or blank. A key too short to be safe is a usage
 * error naming the variable (the key itself is never shown).
 */
export function stateKeyOf(env: CliIo["env"]): string | undefined {
  return keyOf(env, "SWITCHYARD_STATE_KEY", "shares the runs");
}

/** A key variable, trimmed, `undefined` when unset or blank; one too short is a usage error. */
function keyOf(
  env: CliIo["env"],
  name: "SWITCHYARD_STATE_KEY" | "SWITCHYARD_AUDIT_KEY",
  sharedBy: string,
): string | undefined {
  const key = env[name]?.trim();
  if (!key) return undefined;
  if (key.length < minimumStateKeyLength) {
    throw usageError(
      `${name} holds ${key.length} characters; it needs at least ${minimumStateKeyLength}, or it can be guessed: set it to 32 random bytes as hex (openssl rand -hex 32), the same in every process that ${sharedBy}.`,
    );
  }
  return key;
}

/**
 * The audit log the command's runs append every approval decision to:
 * `SWITCHYARD_AUDIT_LOG`, else `audit.jsonl` in the state directory.
 */
export function auditLogPath(env: CliIo["env"]): string {
  const named = env.SWITCHYARD_AUDIT_LOG?.trim();
  return resolve(named ? named : join(openStateDirectory(env).directory, "audit.jsonl"));
}

/**
 * `SWITCHYARD_AUDIT_KEY`, the key of the audit log's chain (see
 * `docs/security.md`), or `undefined` when unset or blank. A key too short
 * to be safe is a usage error naming the variable (the key itself is never shown).
 */
export function auditKeyOf(env: CliIo["env"]): string | undefined {
  return keyOf(env, "SWITCHYARD_AUDIT_KEY", "writes or verifies the log");
}

/** How the runs' audit log is keyed, signed and anchored, from the environment. */
export interface AuditSettings {
  /** `SWITCHYARD_AUDIT_KEY`. */
  auditKey: string | undefined;
  /** `SWITCHYARD_AUDIT_SIGNING_KEY`: PKCS#8 PEM text of an Ed25519 private key. */
  auditSigningKey: string | undefined;
  /** `SWITCHYARD_AUDIT_ANCHOR`: the shell command each head is handed to. */
  anchorCommand: string | undefined;
}

/**
 * `SWITCHYARD_AUDIT_KEY`, `SWITCHYARD_AUDIT_SIGNING_KEY` and
 * `SWITCHYARD_AUDIT_ANCHOR`, each `undefined` when unset or blank. A key
 * that is too short, or a signing key that is not an Ed25519 private key,
 * is a usage error naming the variable (never the key).
 */
export function auditSettingsOf(env: CliIo["env"]): AuditSettings {
  const auditSigningKey = env.SWITCHYARD_AUDIT_SIGNING_KEY?.trim() || undefined;
  try {
    checkAuditSigningKey(auditSigningKey, "SWITCHYARD_AUDIT_SIGNING_KEY");
  } catch (error) {
    throw usageError(
      "SWITCHYARD_AUDIT_SIGNING_KEY is not an Ed25519 private key as PKCS#8 PEM text (-----BEGIN PRIVATE KEY-----, line breaks kept or written \\n): make one with switchyard audit keygen and set it to the private key file's text.",
      { cause: error },
    );
  }
  return {
    auditKey: auditKeyOf(env),
    auditSigningKey,
    anchorCommand: env.SWITCHYARD_AUDIT_ANCHOR?.trim() || undefined,
  };
}

/**
 * The runs' audit log, keyed with `SWITCHYARD_AUDIT_KEY`, signed with
 * `SWITCHYARD_AUDIT_SIGNING_KEY` and anchored with `SWITCHYARD_AUDIT_ANCHOR`
 * when set (`publicKey`, when given, is what a signed log is checked
 * with): the PostgreSQL run store's (schema `SWITCHYARD_DATABASE_SCHEMA`,
 * default `switchyard`) when `SWITCHYARD_DATABASE_URL` is set, so every
 * worker appends to one chain; else the file `path` or
 * {@link auditLogPath} names (nothing is created until a decision). A
 * PostgreSQL log has a pool of its own, which `close` ends (idle, it does
 * not keep the process alive).
 */
export function openAuditLog(
  env: CliIo["env"],
  options: { path?: string | undefined; publicKey?: KeyObject | undefined } = {},
): JsonlAuditLog | PostgresAuditLog {
  const settings = { ...auditSettingsOf(env), publicKey: options.publicKey };
  const url = env.SWITCHYARD_DATABASE_URL?.trim();
  if (url && options.path === undefined) {
    const schema = env.SWITCHYARD_DATABASE_SCHEMA?.trim();
    return new PostgresAuditLog({
      connectionString: url,
      ...settings,
      ...(schema ? { schema } : {}),
    });
  }
  return new JsonlAuditLog({ path: options.path ?? auditLogPath(env), ...settings });
}

/**
 * Begins the runs' audit trail before a run writes to it, when it is
 * keyed or signed (`SWITCHYARD_AUDIT_KEY`, `SWITCHYARD_AUDIT_SIGNING_KEY`):
 * its head of 0 entries is written now, so a fresh trail verifies as
 * empty, never as a trail without its head, before the first decision. A
 * trail this writer cannot vouch for, or a database it cannot reach, stops
 * the command here, naming the log. An unkeyed trail is left as it is
 * (nothing is created until a decision).
 */
export async function beginAuditTrail(
  env: CliIo["env"],
  log: JsonlAuditLog | PostgresAuditLog,
): Promise<void> {
  const { auditKey, auditSigningKey } = auditSettingsOf(env);
  if (auditKey === undefined && auditSigningKey === undefined) return;
  try {
    await log.open();
  } catch (error) {
    throw new CommandError(
      `${log.where} could not be begun: ${(error as Error).message}`,
      exitCodes.notCompleted,
      { cause: error },
    );
  }
}
