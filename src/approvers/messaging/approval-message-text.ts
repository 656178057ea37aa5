import type { StandingScope } from "../../agent/approval/standing-approval.js";
import type { ApprovalAction } from "../../agent/approver.js";
import {
  editAnswer,
  maximumMessageTextLength,
} from "../../clients/messaging/messaging-requests.js";
import { redactText } from "../../internal/redact.js";
import { escapeUntrustedText, quoteUntrustedValue } from "../../internal/untrusted-text.js";
import { formatTarget } from "../../tools/format-target.js";
import type { ActionDescription, ActionDetail } from "../../tools/tool.js";

/** The answers an approval question offers; only `approve` lets the action run. */
export const approvalOptions = [
  { id: "approve", label: "Approve" },
  { id: "deny", label: "Deny" },
] as const;

/**
 * The answer that approves a changed action, offered when the approver
 * allows edits: the reply text holds the whole new arguments as JSON.
 */
export const editOption = { id: editAnswer.optionId, label: editAnswer.label } as const;

/** The answer that approves this action and the next ones like it, within the scope the question states. */
export const standingOptionId = "approve_standing";

/** The standing answer's option, naming how many more actions it covers. */
export function standingOption(scope: StandingScope): { id: string; label: string } {
  return { id: standingOptionId, label: `Approve this and up to ${scope.maxCalls} more like it` };
}

/**
 * The lines stating a standing approval's scope, before anyone chooses:
 * which tool, where, the constrained value (quoted, escaped), how many more
 * calls and until when, and what still stops them.
 */
export function describeStandingScope(scope: StandingScope): string {
  const where = scope.target ? ` on ${formatTarget(scope.target)}` : "";
  const value = scope.sameValue
    ? ` whose ${escapeUntrustedText(redactText(scope.sameValue.label))} is ${quoteUntrustedValue(redactText(scope.sameValue.value))}`
    : "";
  const until = `${scope.until.slice(0, 16).replace("T", " ")} UTC`;
  return [
    `Or choose "${standingOption(scope).label}": then up to ${scope.maxCalls} more calls of ${escapeUntrustedText(scope.toolName)} in this run${where}${value} run without asking you, until ${until}.`,
    "A denial of yours, or a rule that forbids a call, still stops them.",
  ].join("\n");
}

/** Options of {@link buildApprovalMessageText}. */
export interface ApprovalMessageTextOptions {
  /**
   * The longest text the messaging service takes. A longer question shows
   * its first part and says so. @default maximumMessageTextLength (4000)
   */
  maxLength?: number | undefined;
}

const maxSummaryLength = 500;
const maxLineLength = 600;
// Room kept for the notice that says only the first part is shown.
const noticeReserve = 320;

/**
 * The question a person reads before approving: what will happen, where
 * (service, address, account, sandbox or production), to what (every
 * detail the tool gave), whether it can be undone, which tool, and how to
 * answer.
 *
 * The summary and the labels are the tool's words. Everything else (values
 * from the arguments or from a service) is shown quoted, or behind a `|`
 * gutter for text of several lines, with control characters, ANSI escapes,
 * bidirectional overrides and zero-width characters written out
 * (`escapeUntrustedText`), so no value can pose as a line of the question.
 * What the model wrote (a change message) is labelled as the agent's words.
 * Secrets are scrubbed from every part.
 *
 * When the whole does not fit in `maxLength`, the question shows the first
 * lines and says plainly that the rest is left out and that approving
 * approves all of it (the fingerprint covers the whole action).
 *
 * @example
 * Approval needed: Delete 2 callbacks: deliveries to these URLs stop at once.
 * Where: orders service at sandbox.example.com, account acme, environment: sandbox
 * - order_shipped events to: "https://hooks.example.com/a"
 * - order_cancelled events to: "https://hooks.example.com/b"
 * This cannot be undone.
 * Tool: delete_callbacks
 * Reply approve or deny.
 */
export function buildApprovalMessageText(
  action: ApprovalAction,
  options: ApprovalMessageTextOptions = {},
): string {
  const maxLength = options.maxLength ?? maximumMessageTextLength;
  const parts = describeActionParts(action);
  const head = [`Approval needed: ${parts.summary}`, ...parts.where];
  const foot = [...parts.foot, "Reply approve or deny."];
  const body = parts.details;
  const whole = [...head, ...body, ...foot].join("\n");
  if (whole.length <= maxLength && !body.cutLines) return whole;

  let room = maxLength - [...head, ...foot].join("\n").length - noticeReserve;
  const shown: string[] = [];
  for (const line of body) {
    if (line.length + 1 > room) break;
    shown.push(line);
    room -= line.length + 1;
  }
  const notice =
    shown.length === body.length
      ? "[Some long lines are cut above. Approving approves the whole action, including what is not shown; deny if you need to see all of it first.]"
      : `[This question is too long for one message: only the first ${shown.length} of ${body.length} lines are shown. Approving approves the whole action, including what is not shown; deny if you need to see all of it first.]`;
  return [...head, ...shown, notice, ...foot].join("\n");
}

/**
 * The parts of an action as a question shows them: its summary (or "run the
 * tool below."), where it acts, its detail lines, and whether it can be
 * undone and which tool it runs; every untrusted part escaped, secrets
 * scrubbed.
 */
export function describeActionParts(action: ApprovalAction): {
  summary: string;
  where: string[];
  details: DetailLines;
  foot: string[];
} {
  const { description } = action;
  const summary = cut(
    escapeUntrustedText(redactText(String(description?.summary ?? "")).trim()),
    maxSummaryLength,
  );
  return {
    summary: summary || "run the tool below.",
    where: action.target ? [`Where: ${formatTarget(action.target)}`] : [],
    details: describeActionLines(description),
    foot: [
      ...(description?.irreversible !== false ? ["This cannot be undone."] : []),
      `Tool: ${escapeUntrustedText(action.toolName)}`,
    ],
  };
}

/** The lines of an action's details, and whether a line had to be cut to `maxLineLength`. */
type DetailLines = string[] & { cutLines?: boolean };

/**
 * The lines showing an action's details, as the approval question and the
 * command line show them: one `- label: "value"` line per value, a block
 * behind `  | ` per text, every untrusted part escaped and secrets scrubbed.
 */
export function describeActionLines(description: ActionDescription | undefined): DetailLines {
  const details = Array.isArray(description?.details) ? description.details : [];
  const lines: DetailLines = [];
  const push = (line: string) => {
    if (line.length > maxLineLength) lines.cutLines = true;
    lines.push(cut(line, maxLineLength));
  };
  for (const detail of details) {
    if (typeof detail === "string") {
      const line = valueLine("- ", detail);
      if (line.cut) lines.cutLines = true;
      lines.push(line.text);
      continue;
    }
    if (typeof detail !== "object" || detail === null) continue;
    const { value, text } = detail as ActionDetail;
    const label = `- ${escapeUntrustedText(redactText(String(detail.label ?? "")))}${detail.writtenByAgent === true ? " (the agent's words)" : ""}`;
    if (typeof value === "string") {
      const line = valueLine(`${label}: `, value);
      if (line.cut) lines.cutLines = true;
      lines.push(line.text);
    } else if (typeof text === "string") {
      if (text === "") {
        push(`${label}: (empty)`);
        continue;
      }
      push(`${label}:`);
      const textLines = redactText(text).split(/\r?\n/);
      if (textLines.length > 1 && textLines.at(-1) === "") textLines.pop();
      for (const line of textLines) push(`  | ${escapeUntrustedText(line)}`);
    } else push(label);
  }
  return lines;
}

// `label: "value"`, the value cut (inside its quotes, never in an escape) when the line would be too long.
function valueLine(prefix: string, value: string): { text: string; cut: boolean } {
  const redacted = redactText(value);
  const room = maxLineLength - prefix.length;
  const whole = quoteUntrustedValue(redacted);
  if (whole.length <= room) return { text: `${prefix}${whole}`, cut: false };
  let kept = Math.min(redacted.length, room);
  let quoted = whole;
  for (;;) {
    if (/[\ud800-\udbff]/.test(redacted.charAt(kept - 1))) kept -= 1;
    quoted = quoteUntrustedValue(redacted.slice(0, kept));
    if (quoted.length <= room || kept === 0) break;
    kept = Math.floor(kept * 0.8);
  }
  const left = redacted.length - kept;
  return { text: `${prefix}${quoted}… (${left} more characters not shown)`, cut: true };
}

function cut(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const end = /[\ud800-\udbff]/.test(text.charAt(maxLength - 1)) ? maxLength - 1 : maxLength;
  return `${text.slice(0, end)}… (${text.length - end} more characters on this line)`;
}
