import type { KeyObject } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import type { ApprovalAuditRecord } from "../../agent/approval/approval-audit-record.js";
import type { AuditLog, AuditLogVerification } from "../../agent/approval/audit-log.js";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { escapeUntrustedText, quoteUntrustedValue } from "../../internal/untrusted-text.js";
import { AuditKeyRequiredError } from "../../stores/audit-chain.js";
import {
  checkAuditSigningKey,
  generateAuditSigningKeyPair,
  parseAuditPublicKey,
  publicKeyFingerprint,
} from "../../stores/audit-signing.js";
import { inAuditSelection } from "../../stores/export-audit-bundle.js";
import { auditLogExists, JsonlAuditLog, readAuditBundle } from "../../stores/jsonl-audit-log.js";
import { PostgresAuditLog } from "../../stores/postgres-audit-log.js";
import {
  type AuditBundleVerification,
  verifyAuditBundle,
} from "../../stores/verify-audit-bundle.js";
import type { CliIo } from "../cli-io.js";
import { CommandError, usageError } from "../command-error.js";
import { findCommandSpec } from "../command-specs.js";
import { exitCodes } from "../exit-codes.js";
import { formatRecognisedApprovers } from "../format-recognised-approvers.js";
import { commandHelp } from "../help-text.js";
import { auditSettingsOf, openAuditLog } from "../open-state-directory.js";

/** What `switchyard audit` can do. */
export type AuditAction = "verify" | "show" | "export" | "keygen";

/** What `switchyard audit` was asked. */
export interface AuditCommandLine {
  action: AuditAction | undefined;
  /** The file to verify (a log or a bundle), the run to show or export, or where keygen writes the private key. */
  target: string | undefined;
  /** `--file`: the audit log file to read (show, export). */
  file: string | undefined;
  /** `--public-key`: the PEM file of the trail's public key (keygen: where it goes). */
  publicKey: string | undefined;
  /** `--anchor`: a file holding a head of the trail kept elsewhere (verify). */
  anchor: string | undefined;
  /** `--since`, `--until`: the time range to export. */
  since: string | undefined;
  until: string | undefined;
  /** `--out`: where export writes the bundle (default stdout). */
  out: string | undefined;
  json: boolean;
  help: boolean;
}

/** Where keygen puts the private key when not told. */
const defaultPrivateKeyFile = "audit-signing-key.pem";

/**
 * `switchyard audit verify [<file>]`: whether the log (or an exported
 * bundle) was altered (exit 1 if so, naming each problem; exit 2 when
 * there is no such log, or it is keyed or signed and its key is not
 * given). `switchyard audit show <run-id>`: the decisions of one run, one
 * line each, every value escaped (exit 1 when there are none, or a record
 * is of an unknown shape). `switchyard audit export [<run-id>]`: a bundle
 * of a run's (or a time range's) signed records that verifies offline.
 * `switchyard audit keygen [<file>]`: a new Ed25519 signing key pair.
 */
export async function auditCommand(line: AuditCommandLine, io: CliIo): Promise<number> {
  if (
    line.help ||
    line.action === undefined ||
    (line.action === "show" && line.target === undefined)
  ) {
    io.stdout.write(commandHelp(findCommandSpec("audit")!, []));
    return exitCodes.completed;
  }
  if (line.action === "keygen") return keygen(io, line);
  const publicKey = line.publicKey === undefined ? undefined : await readPublicKey(line.publicKey);
  if (line.action === "verify" && line.target !== undefined) {
    const bundle = await readAuditBundle(line.target);
    if (bundle !== undefined) return verifyBundle(io, line.target, bundle, publicKey, line.json);
  }
  const file = line.action === "verify" ? line.target : line.file;
  const log = openAuditLog(io.env, { path: file, publicKey });
  try {
    if (line.action === "show") return await showRun(io, log, line.target!, line.json);
    if (line.action === "export") return await exportBundle(io, log, line, publicKey);
    // A log removed whole leaves its head behind: that is an altered log, not a wrong path.
    if (
      log instanceof JsonlAuditLog &&
      !(await auditLogExists(log.path)) &&
      !(await auditLogExists(log.headPath))
    ) {
      throw usageError(
        `switchyard audit verify: there is no audit log at ${log.path}; give the file the runs appended to (SWITCHYARD_AUDIT_LOG, else audit.jsonl in the state directory).`,
      );
    }
    const anchor = line.anchor === undefined ? undefined : await readAnchor(line.anchor);
    const verification = await verifyWithKey(log, anchor);
    writeVerification(io, log.where, verification, line.json);
    return verification.intact ? exitCodes.completed : exitCodes.notCompleted;
  } finally {
    if (log instanceof PostgresAuditLog) await log.close();
  }
}

async function verifyWithKey(log: AuditLog, anchor: unknown): Promise<AuditLogVerification> {
  try {
    return await log.verify(anchor === undefined ? {} : { anchor });
  } catch (error) {
    if (error instanceof AuditKeyRequiredError) {
      throw usageError(`switchyard audit: ${error.message}`);
    }
    throw error;
  }
}

/** The public key of SWITCHYARD_AUDIT_SIGNING_KEY, when set: what a log is checked with without --public-key. */
function signedBy(env: CliIo["env"]): KeyObject | undefined {
  const { auditSigningKey } = auditSettingsOf(env);
  return checkAuditSigningKey(auditSigningKey, "SWITCHYARD_AUDIT_SIGNING_KEY")?.publicKey;
}

async function readPublicKey(path: string): Promise<KeyObject> {
  const text = await readFileOrUsageError(path, "--public-key");
  try {
    return parseAuditPublicKey(text, `--public-key ${path}`);
  } catch (error) {
    if (error instanceof ConfigurationError) throw usageError(error.message, { cause: error });
    throw error;
  }
}

/** The last head in an anchor file (one head, or one head per line as an anchor command appends them). */
async function readAnchor(path: string): Promise<unknown> {
  const lines = (await readFileOrUsageError(path, "--anchor"))
    .split("\n")
    .filter((text) => text.trim() !== "");
  const last = lines.at(-1);
  try {
    if (last === undefined) throw new SyntaxError("empty");
    return JSON.parse(last);
  } catch (error) {
    throw usageError(
      `--anchor ${path} holds no head (one JSON object per line, as the anchor command received them).`,
      { cause: error },
    );
  }
}

async function readFileOrUsageError(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw usageError(`${flag} ${path}: cannot be read (${(error as Error).message}).`, {
      cause: error,
    });
  }
}

function verifyBundle(
  io: CliIo,
  path: string,
  bundle: unknown,
  publicKey: KeyObject | undefined,
  json: boolean,
): number {
  const verification = verifyAuditBundle(bundle, { publicKey });
  writeBundleVerification(io, path, verification, json);
  return verification.intact ? exitCodes.completed : exitCodes.notCompleted;
}

function writeBundleVerification(
  io: CliIo,
  path: string,
  verification: AuditBundleVerification,
  json: boolean,
): void {
  const { intact, consistent, unverifiedKey, entries, records, selection, problems, notes } =
    verification;
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ bundle: path, intact, consistent, unverifiedKey, entries, records: records.length, selection, publicKey: verification.publicKey, head: verification.head, problems, notes })}\n`,
    );
    return;
  }
  if (consistent && unverifiedKey !== undefined) {
    io.stdout.write(
      `NOT VERIFIED: ${path} is consistent (${records.length} record(s) of ${describeSelection(selection)}, among ${entries} entries), but signed by an unverified key ${unverifiedKey}, which anyone can make. Pass --public-key FILE, the agent's public key, to check it is the agent's.\n`,
    );
  } else if (!intact) {
    io.stdout.write(`ALTERED: ${path}\n`);
    for (const problem of problems) io.stdout.write(`  ${problem}\n`);
  } else {
    io.stdout.write(
      `intact (signed bundle): ${records.length} record(s) of ${describeSelection(selection)}, among the trail's ${entries} entries; each record matches its hash and its Ed25519 signature, every entry left out is of another run or time, and the signed head covers them all. Public key ${verification.publicKey} (the one given)\n`,
    );
  }
  for (const note of notes) io.stdout.write(`  note: ${note}\n`);
}

function describeSelection(selection: {
  runId?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}): string {
  const parts: string[] = [];
  if (selection.runId !== undefined) parts.push(`run ${quoteUntrustedValue(selection.runId)}`);
  if (selection.since !== undefined) parts.push(`since ${escapeUntrustedText(selection.since)}`);
  if (selection.until !== undefined) parts.push(`until ${escapeUntrustedText(selection.until)}`);
  return parts.length === 0 ? "the whole trail" : parts.join(", ");
}

/** The log was opened with the public key given, else the signing key's. */
async function exportBundle(
  io: CliIo,
  log: JsonlAuditLog | PostgresAuditLog,
  line: AuditCommandLine,
  given: KeyObject | undefined,
): Promise<number> {
  if (given === undefined && signedBy(io.env) === undefined) {
    throw usageError(
      "switchyard audit export needs the trail's public key: --public-key FILE, or SWITCHYARD_AUDIT_SIGNING_KEY (its public half is used).",
    );
  }
  const selection = {
    ...(line.target !== undefined ? { runId: line.target } : {}),
    ...(line.since !== undefined ? { since: line.since } : {}),
    ...(line.until !== undefined ? { until: line.until } : {}),
  };
  let bundle: Awaited<ReturnType<typeof log.exportBundle>>;
  try {
    bundle = await log.exportBundle(selection);
  } catch (error) {
    if (error instanceof ConfigurationError) {
      throw usageError(`switchyard audit export: ${error.message}`, { cause: error });
    }
    throw new CommandError(
      `switchyard audit export: ${(error as Error).message}`,
      exitCodes.notCompleted,
      { cause: error },
    );
  }
  const text = `${JSON.stringify(bundle, null, 2)}\n`;
  const records = bundle.entries.filter(
    (entry) => "record" in entry && inAuditSelection(entry.record, bundle.selection),
  ).length;
  if (line.out === undefined) io.stdout.write(text);
  else await writeFile(line.out, text, { mode: 0o644 });
  io.stderr.write(
    `exported ${records} record(s) of ${describeSelection(selection)} among ${bundle.head.entries} entries of ${log.where}${line.out === undefined ? "" : ` to ${line.out}`}; check it with switchyard audit verify <bundle> --public-key <file>\n`,
  );
  return exitCodes.completed;
}

async function keygen(io: CliIo, line: AuditCommandLine): Promise<number> {
  const privatePath = line.target ?? defaultPrivateKeyFile;
  const publicPath =
    line.publicKey ??
    (privatePath.endsWith(".pem") ? `${privatePath.slice(0, -4)}.pub.pem` : `${privatePath}.pub`);
  const pair = generateAuditSigningKeyPair();
  for (const [path, text, mode] of [
    [privatePath, pair.privateKey, 0o600],
    [publicPath, pair.publicKey, 0o644],
  ] as const) {
    try {
      // Never overwrite: a key in use replaced is a trail nobody can extend.
      await writeFile(path, text, { mode, flag: "wx" });
    } catch (error) {
      const exists = (error as NodeJS.ErrnoException).code === "EEXIST";
      throw usageError(
        exists
          ? `switchyard audit keygen: ${path} already exists; it is never overwritten (a signing key replaced leaves a trail its writer cannot extend). Give another file.`
          : `switchyard audit keygen: cannot write ${path} (${(error as Error).message}).`,
        { cause: error },
      );
    }
  }
  const fingerprint = publicKeyFingerprint(parseAuditPublicKey(pair.publicKey, publicPath));
  if (line.json) {
    io.stdout.write(
      `${JSON.stringify({ privateKey: privatePath, publicKey: publicPath, fingerprint })}\n`,
    );
  } else {
    io.stdout.write(
      [
        `private key: ${privatePath} (keep it secret, with the agent only: SWITCHYARD_AUDIT_SIGNING_KEY="$(cat ${privatePath})", or the auditSigningKey option)`,
        `public key:  ${publicPath} (give it to auditors: switchyard audit verify --public-key ${publicPath})`,
        `fingerprint: ${fingerprint}`,
        "",
      ].join("\n"),
    );
  }
  return exitCodes.completed;
}

function writeVerification(
  io: CliIo,
  where: string,
  verification: AuditLogVerification,
  json: boolean,
): void {
  const { intact, chain, entries, lastHash, head, problems, notes, publicKey } = verification;
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ file: where, intact, chain, entries, lastHash, head, problems, notes, publicKey })}\n`,
    );
    return;
  }
  if (!intact) {
    io.stdout.write(`ALTERED: ${where}\n`);
    for (const problem of problems) io.stdout.write(`  ${problem}\n`);
  } else if (chain === "signed") {
    io.stdout.write(
      `intact (signed): ${entries} decision(s), each chained to the one before and signed with Ed25519, and the signed head matches; no one without the signing key changed, removed, reordered or cut an entry, and anyone with the public key${publicKey ? ` (${publicKey})` : ""} can check it. Last hash ${lastHash}\n`,
    );
  } else if (chain === "keyed") {
    io.stdout.write(
      `intact (keyed): ${entries} decision(s), each chained to the one before by an HMAC-SHA256 under SWITCHYARD_AUDIT_KEY, and the head matches; no one without the key changed, removed, reordered or cut an entry. Last hash ${lastHash}\n`,
    );
  } else if (chain === "unkeyed") {
    io.stdout.write(
      `intact (unkeyed): ${entries} decision(s), chained by plain SHA-256 hashes. This shows accidental damage, not forgery: anyone who can write the file can recompute an unkeyed chain. Set SWITCHYARD_AUDIT_SIGNING_KEY (or SWITCHYARD_AUDIT_KEY) when the runs write it to sign the chain. Last hash ${lastHash}\n`,
    );
  } else if (head?.signature !== undefined || head?.mac !== undefined) {
    io.stdout.write(
      `intact: no decisions yet (the trail's ${head.signature !== undefined ? "signed" : "keyed"} head says it is empty)\n`,
    );
  } else {
    io.stdout.write("intact: no decisions yet\n");
  }
  for (const note of notes) io.stdout.write(`  note: ${note}\n`);
}

async function showRun(io: CliIo, log: AuditLog, runId: string, json: boolean): Promise<number> {
  let verification: AuditLogVerification | undefined;
  let warning: string | undefined;
  try {
    verification = await log.verify();
    if (
      !verification.intact &&
      !(log instanceof JsonlAuditLog && !(await auditLogExists(log.path)))
    ) {
      warning = `${log.where} does not verify (${verification.problems.length} problem(s)); run switchyard audit verify`;
    }
  } catch (error) {
    if (!(error instanceof AuditKeyRequiredError)) throw error;
    warning = `${log.where} is keyed or signed; set SWITCHYARD_AUDIT_KEY, or give --public-key, to check that these records were not changed`;
  }
  const intact = verification?.intact;
  // An intact log was read whole by verify: the run's records are among those, not read again.
  const records = verification?.intact
    ? verification.records.filter((record) => record.runId === runId)
    : await readRun(log, runId);
  if (warning) io.stderr.write(`warning: ${warning}\n`);
  if (json) {
    io.stdout.write(`${JSON.stringify({ file: log.where, runId, intact, records })}\n`);
  } else if (records.length === 0) {
    io.stderr.write(
      `No approval decisions of run ${escapeUntrustedText(runId)} in ${log.where}.\n`,
    );
  } else {
    for (const record of records) io.stdout.write(`${describeDecision(record)}\n`);
  }
  return records.length > 0 ? exitCodes.completed : exitCodes.notCompleted;
}

/** The run's records, read from a log that could not be verified; an entry of an unknown shape is a command error. */
async function readRun(log: AuditLog, runId: string): Promise<ApprovalAuditRecord[]> {
  try {
    return await log.read({ runId });
  } catch (error) {
    throw new CommandError(
      `switchyard audit show: ${escapeUntrustedText((error as Error).message)}; the log holds something Switchyard did not write (check it with switchyard audit verify)`,
      exitCodes.notCompleted,
      { cause: error },
    );
  }
}

/** One line: when, what, the outcome, who decided, and the note; every value from the log escaped. */
function describeDecision(record: ApprovalAuditRecord): string {
  const quote = quoteUntrustedValue;
  const escapeText = escapeUntrustedText;
  const { coveredBy, standing } = record;
  const who =
    record.decidedBy === "policy"
      ? `rule ${quote(record.rule ?? "")}`
      : record.decidedBy === "person"
        ? `person${record.approvedBy ? ` ${quote(record.approvedBy)}` : ""}${record.approverLink ? ` via link ${quote(record.approverLink)}` : ""}`
        : record.decidedBy === "standing" && coveredBy
          ? `the standing approval ${quote(grantedBy(coveredBy))} (use ${coveredBy.use} of ${coveredBy.maxCalls})`
          : escapeText(record.decidedBy ?? "approver");
  const parts = [
    escapeText(record.decidedAt),
    escapeText(record.action),
    escapeText(record.outcome) + (record.code ? ` (${escapeText(record.code)})` : ""),
    `by ${who}`,
    `fingerprint ${escapeText(record.fingerprint)}`,
  ];
  if (record.questionDigest) parts.push(`question ${escapeText(record.questionDigest)}`);
  if (standing) {
    parts.push(`standing: ${standing.maxCalls} more like it until ${escapeText(standing.until)}`);
  }
  if (record.approvers) parts.push(`approvers ${record.approvers.map(quote).join(", ")}`);
  if (record.people && record.people.length > 0) {
    parts.push(`people ${formatRecognisedApprovers(record.people)}`);
  } else if (record.answeredBy) {
    parts.push(
      `answered on ${escapeText(record.answeredBy.channel)} as ${quote(record.answeredBy.id)}`,
    );
  }
  if (record.reason && record.outcome !== "approved") parts.push(`reason ${quote(record.reason)}`);
  if (record.note) parts.push(`note ${quote(record.note)}`);
  return parts.join("  ");
}

/** The approval whose standing scope covered a call; entries written before approvals had ids name its interaction. */
function grantedBy(coveredBy: { approvalId?: string; interactionId?: string }): string {
  return coveredBy.approvalId ?? coveredBy.interactionId ?? "";
}
