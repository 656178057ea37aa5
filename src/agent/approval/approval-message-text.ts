import { redactText } from "../../internal/redact.js";
import type { ApprovalAction } from "../approver.js";

/** The answers an approval question offers; only `approve` lets the action run. */
export const approvalOptions = [
  { id: "approve", label: "Approve" },
  { id: "deny", label: "Deny" },
] as const;

/** Detail lines shown before the rest is summarised as `... and N more`. */
export const maxDetailLines = 100;

const maxLineLength = 300;
const maxSummaryLength = 500;

/**
 * The question a person reads before approving: what will happen, to what
 * (one line per affected thing, at most `maxDetailLines`), whether it can be
 * undone, which tool, and how to answer. Secrets are scrubbed; the
 * description already comes redacted, this is a second line of defence
 * because the text leaves the process.
 *
 * @example
 * Approval needed: Delete 2 callbacks.
 * - https://hooks.example.com/a (order_shipped)
 * - https://hooks.example.com/b (order_cancelled)
 * This cannot be undone.
 * Tool: delete_callbacks
 * Reply approve or deny.
 */
export function buildApprovalMessageText(action: ApprovalAction): string {
  const { description } = action;
  const summary = oneLine(String(description?.summary ?? ""), maxSummaryLength);
  const details = Array.isArray(description?.details) ? description.details : [];
  const lines = [`Approval needed: ${summary || `run the tool "${action.toolName}".`}`];
  for (const detail of details.slice(0, maxDetailLines)) {
    lines.push(`- ${oneLine(String(detail), maxLineLength)}`);
  }
  if (details.length > maxDetailLines)
    lines.push(`... and ${details.length - maxDetailLines} more`);
  if (description?.irreversible !== false) lines.push("This cannot be undone.");
  lines.push(`Tool: ${oneLine(action.toolName, maxLineLength)}`);
  lines.push("Reply approve or deny.");
  return redactText(lines.join("\n"));
}

// A detail must stay one line: a line break inside it could pose as a line of the question.
function oneLine(text: string, maxLength: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > maxLength ? `${flat.slice(0, maxLength - 1)}…` : flat;
}
