import type { ApprovalAuditRecord } from "../../agent/approval/approval-audit-record.js";
import type { AuditLog, AuditLogVerification } from "../../agent/approval/audit-log.js";
import { escapeUntrustedText, quoteUntrustedValue } from "../../internal/untrusted-text.js";
import { AuditKeyRequiredError } from "../../stores/audit-chain.js";
import { auditLogExists, JsonlAuditLog } from "../../stores/jsonl-audit-log.js";
import { PostgresAuditLog } from "../../stores/postgres-audit-log.js";
import type { CliIo } from "../cli-io.js";
import { CommandError, usageError } from "../command-error.js";
import { findCommandSpec } from "../command-specs.js";
import { exitCodes } from "../exit-codes.js";
import { commandHelp } from "../help-text.js";
import { auditKeyOf, openAuditLog } from "../open-state-directory.js";

/** What `switchyard audit` was asked. */
export interface AuditCommandLine {
  action: "verify" | "show" | undefined;
  /** The file to verify (optional), or the run to show. */
  target: string | undefined;
  file: string | undefined;
  json: boolean;
  help: boolean;
}

/**
 * `switchyard audit verify [<file>]`: whether the log was altered (exit 1
 * if so, naming each problem; exit 2 when there is no such log, or it is
 * keyed and `SWITCHYARD_AUDIT_KEY` is not set). `switchyard audit show
 * <run-id>`: the decisions of one run, one line each, every value escaped
 * (exit 1 when there are none, or a record is of an unknown shape).
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
  const file = line.action === "verify" ? line.target : line.file;
  const log =
    file !== undefined
      ? new JsonlAuditLog({ path: file, auditKey: auditKeyOf(io.env) })
      : openAuditLog(io.env);
  try {
    if (line.action === "show") return await showRun(io, log, line.target!, line.json);
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
    const verification = await verifyWithKey(log);
    writeVerification(io, log.where, verification, line.json);
    return verification.intact ? exitCodes.completed : exitCodes.notCompleted;
  } finally {
    if (log instanceof PostgresAuditLog) await log.close();
  }
}

async function verifyWithKey(log: AuditLog): Promise<AuditLogVerification> {
  try {
    return await log.verify();
  } catch (error) {
    if (error instanceof AuditKeyRequiredError) {
      throw usageError(`switchyard audit: ${error.message}`);
    }
    throw error;
  }
}

function writeVerification(
  io: CliIo,
  where: string,
  verification: AuditLogVerification,
  json: boolean,
): void {
  const { intact, chain, entries, lastHash, head, problems, notes } = verification;
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ file: where, intact, chain, entries, lastHash, head, problems, notes })}\n`,
    );
    return;
  }
  if (!intact) {
    io.stdout.write(`ALTERED: ${where}\n`);
    for (const problem of problems) io.stdout.write(`  ${problem}\n`);
  } else if (chain === "keyed") {
    io.stdout.write(
      `intact (keyed): ${entries} decision(s), each chained to the one before by an HMAC-SHA256 under SWITCHYARD_AUDIT_KEY, and the head matches; no one without the key changed, removed, reordered or cut an entry. Last hash ${lastHash}\n`,
    );
  } else if (chain === "unkeyed") {
    io.stdout.write(
      `intact (unkeyed): ${entries} decision(s), chained by plain SHA-256 hashes. This shows accidental damage, not forgery: anyone who can write the file can recompute an unkeyed chain. Set SWITCHYARD_AUDIT_KEY when the runs write it to key the chain. Last hash ${lastHash}\n`,
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
    warning = `${log.where} is keyed; set SWITCHYARD_AUDIT_KEY to check that these records were not changed`;
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
  if (record.reason && record.outcome !== "approved") parts.push(`reason ${quote(record.reason)}`);
  if (record.note) parts.push(`note ${quote(record.note)}`);
  return parts.join("  ");
}

/** The approval whose standing scope covered a call; entries written before approvals had ids name its interaction. */
function grantedBy(coveredBy: { approvalId?: string; interactionId?: string }): string {
  return coveredBy.approvalId ?? coveredBy.interactionId ?? "";
}
