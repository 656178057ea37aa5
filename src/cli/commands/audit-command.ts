import type { ApprovalAuditRecord } from "../../agent/approval/approval-audit-record.js";
import { escapeUntrustedText, quoteUntrustedValue } from "../../internal/untrusted-text.js";
import { verifyAuditLog } from "../../stores/jsonl-audit-log.js";
import type { CliIo } from "../cli-io.js";
import { findCommandSpec } from "../command-specs.js";
import { exitCodes } from "../exit-codes.js";
import { commandHelp } from "../help-text.js";
import { auditLogPath } from "../open-state-directory.js";

/** What `switchyard audit` was asked. */
export interface AuditCommandLine {
  action: "verify" | "show" | undefined;
  target: string | undefined;
  file: string | undefined;
  json: boolean;
  help: boolean;
}

/**
 * `switchyard audit verify <file>`: whether the log was altered (exit 1 if
 * so, naming each broken line). `switchyard audit show <run-id>`: the
 * decisions of one run, one line each (exit 1 when there are none).
 */
export async function auditCommand(line: AuditCommandLine, io: CliIo): Promise<number> {
  if (line.help || line.action === undefined || line.target === undefined) {
    io.stdout.write(commandHelp(findCommandSpec("audit")!, []));
    return exitCodes.completed;
  }
  const file = line.action === "verify" ? line.target : (line.file ?? auditLogPath(io.env));
  const verification = await verifyAuditLog(file);
  if (line.action === "verify") {
    if (line.json) {
      const { intact, entries, lastHash, problems } = verification;
      io.stdout.write(`${JSON.stringify({ file, intact, entries, lastHash, problems })}\n`);
    } else if (verification.intact) {
      io.stdout.write(
        `intact: ${verification.entries} decision(s), chained; last hash ${verification.lastHash}\n`,
      );
    } else {
      io.stdout.write(`ALTERED: ${file}\n`);
      for (const problem of verification.problems) io.stdout.write(`  ${problem}\n`);
    }
    return verification.intact ? exitCodes.completed : exitCodes.notCompleted;
  }
  const runId = line.target;
  const records = verification.records.filter((record) => record.runId === runId);
  if (!verification.intact) {
    io.stderr.write(
      `warning: ${file} does not verify (${verification.problems.length} problem(s)); run switchyard audit verify ${file}\n`,
    );
  }
  if (line.json) {
    io.stdout.write(`${JSON.stringify({ file, runId, intact: verification.intact, records })}\n`);
  } else if (records.length === 0) {
    io.stderr.write(`No approval decisions of run ${runId} in ${file}.\n`);
  } else {
    for (const record of records) io.stdout.write(`${describeDecision(record)}\n`);
  }
  return records.length > 0 ? exitCodes.completed : exitCodes.notCompleted;
}

/** One line: when, what, the outcome, who decided, and the note, quoted. */
function describeDecision(record: ApprovalAuditRecord): string {
  const who =
    record.decidedBy === "policy"
      ? `rule ${quoteUntrustedValue(record.rule ?? "")}`
      : record.decidedBy === "person"
        ? `person${record.approvedBy ? ` ${quoteUntrustedValue(record.approvedBy)}` : ""}${record.approverLink ? ` via link ${quoteUntrustedValue(record.approverLink)}` : ""}`
        : record.decidedBy === "standing" && record.coveredBy
          ? `the standing approval of interaction ${quoteUntrustedValue(record.coveredBy.interactionId)} (use ${record.coveredBy.use} of ${record.coveredBy.maxCalls})`
          : (record.decidedBy ?? "approver");
  const parts = [
    escapeUntrustedText(record.decidedAt),
    escapeUntrustedText(record.action),
    escapeUntrustedText(record.outcome) +
      (record.code ? ` (${escapeUntrustedText(record.code)})` : ""),
    `by ${who}`,
    `fingerprint ${escapeUntrustedText(record.fingerprint)}`,
  ];
  if (record.questionDigest) parts.push(`question ${escapeUntrustedText(record.questionDigest)}`);
  if (record.standing) {
    parts.push(
      `standing: ${record.standing.maxCalls} more like it until ${escapeUntrustedText(record.standing.until)}`,
    );
  }
  if (record.approvers) {
    parts.push(`approvers ${record.approvers.map((link) => quoteUntrustedValue(link)).join(", ")}`);
  }
  if (record.note) parts.push(`note ${quoteUntrustedValue(record.note)}`);
  return parts.join("  ");
}
