import { type ActionViewStanding, viewOfAction } from "../../agent/approval/action-view.js";
import { actionViewLines, targetWords } from "../../agent/approval/action-view-lines.js";
import type { StandingScope } from "../../agent/approval/standing-approval.js";
import type { ApprovalAction } from "../../agent/approver.js";
import {
  editAnswer,
  maximumMessageTextLength,
} from "../../clients/messaging/messaging-requests.js";
import { escapeShownText } from "../../internal/untrusted-text.js";
import { formatDuration } from "./approval-refusal.js";

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
export function standingOption(scope: Pick<StandingScope, "maxCalls">): {
  id: string;
  label: string;
} {
  return { id: standingOptionId, label: `Approve this and up to ${scope.maxCalls} more like it` };
}

/**
 * The lines stating a standing approval's scope, before anyone chooses:
 * which tool, where, the constrained value (quoted), how many more calls
 * and until when, and what still stops them; from the action's view.
 */
export function describeStandingScope(scope: ActionViewStanding): string {
  const where = scope.target ? ` on ${targetWords(scope.target)}` : "";
  const value = scope.sameValue
    ? ` whose ${scope.sameValue.label} is "${scope.sameValue.value}"`
    : "";
  const until = `${scope.until.slice(0, 16).replace("T", " ")} UTC`;
  return [
    `Or choose "${standingOption(scope).label}": then up to ${scope.maxCalls} more calls of ${scope.tool} in this run${where}${value} run without asking you, until ${until}.`,
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
  /** Who is asked and how many must approve ({@link whoIsAskedLine}), shown before how to answer. */
  whoIsAsked?: string | undefined;
}

/** The people a question is put to, by name, and how many of them must approve. */
export interface WhoIsAsked {
  /** The names of the people asked now. */
  asked: readonly string[];
  /** How many distinct people must each approve. */
  required: number;
  /** Who is asked too when nobody decided within `afterMs`: their names and roles. */
  escalation?: { names: readonly string[]; roles: readonly string[]; afterMs: number } | undefined;
}

/**
 * The line of a question saying who is asked and how many of them must
 * approve (and, with an escalation, who is asked next and when); each name
 * and role quoted and escaped by the view's rule, as every value is.
 *
 * @example
 * whoIsAskedLine({ asked: ["Alice Ng", "Bob Roy", "Carol Diaz"], required: 2 })
 * // => 'Asked: "Alice Ng", "Bob Roy" and "Carol Diaz"; 2 of them must approve, and a denial from any one of them stops it.'
 */
export function whoIsAskedLine(who: WhoIsAsked): string {
  const names = listInWords(who.asked.map(quoted));
  const count =
    who.asked.length === 1 && who.required === 1
      ? ""
      : `; ${who.required} of them must approve, and a denial from any one of them stops it`;
  const escalation = who.escalation;
  const next =
    escalation !== undefined && escalation.names.length > 0
      ? ` If nobody decides within ${formatDuration(escalation.afterMs)}, ${listInWords(escalation.names.map(quoted))} (role ${listInWords(escalation.roles.map(quoted), "or")}) ${escalation.names.length === 1 ? "is" : "are"} asked too, and count like the others.`
      : "";
  return `Asked: ${names}${count}.${next}`;
}

function quoted(text: string): string {
  return `"${escapeShownText(text)}"`;
}

/** `a`, `a and b`, `a, b and c` (or `or`). */
export function listInWords(items: readonly string[], last = "and"): string {
  if (items.length < 2) return items.join("");
  return `${items.slice(0, -1).join(", ")} ${last} ${items.at(-1)}`;
}

const maxSummaryLength = 500;
const maxLineLength = 600;
// Room kept for the notice that says only the first part is shown.
const noticeReserve = 320;

/**
 * The question a person reads before approving, laid out from the action's
 * one view (`actionViewLines`): what will happen, where (service, address,
 * account, sandbox or production), to what (every detail the tool gave),
 * every argument as JSON, whether it can be undone, which tool, and how to
 * answer.
 *
 * The summary and the labels are the tool's words. Everything else (values
 * from the arguments or from a service) is shown quoted, or behind a `|`
 * gutter for text of several lines and for the arguments, escaped once by
 * the view, so no value can pose as a line of the question. What the model
 * wrote (a change message) is labelled as the agent's words. Secrets the
 * agent knows show as placeholders; nothing else is hidden.
 *
 * When the whole does not fit in `maxLength`, the question shows the first
 * lines and says plainly that the rest is left out and that approving
 * approves all of it (the fingerprint covers the whole action).
 *
 * @example
 * Approval needed: Delete 2 callbacks: deliveries to these URLs stop at once.
 * Where: service "orders" at "sandbox.example.com", account "acme", environment "sandbox"
 * - order_shipped events to: "https://hooks.example.com/a"
 * - order_cancelled events to: "https://hooks.example.com/b"
 * Arguments (JSON):
 *   | {
 *   |   "ids": [
 *   |     "cb_1",
 *   |     "cb_2"
 *   |   ]
 *   | }
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
  const foot = [
    ...parts.foot,
    ...(options.whoIsAsked !== undefined ? [options.whoIsAsked] : []),
    "Reply approve or deny.",
  ];
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
 * The parts of an action as a question shows them, from its one view
 * ({@link actionViewLines}): its summary (or "run the tool below."), where
 * it acts, its detail lines and its arguments, and whether it can be
 * undone and which tool it runs. A line longer than the question allows is
 * cut, never inside an escape, and `details.cutLines` says so.
 */
export function describeActionParts(action: ApprovalAction): {
  summary: string;
  where: string[];
  details: DetailLines;
  foot: string[];
} {
  const lines = actionViewLines(viewOfAction(action));
  const details: DetailLines = [];
  for (const line of [...lines.details, ...lines.arguments]) {
    const shown = cutLine(line, maxLineLength);
    if (shown !== line) details.cutLines = true;
    details.push(shown);
  }
  return {
    summary: cutLine(lines.summary, maxSummaryLength),
    where: lines.where.map((line) => cutLine(line, maxLineLength)),
    details,
    foot: lines.foot,
  };
}

/** The lines of an action's details, and whether a line had to be cut to `maxLineLength`. */
type DetailLines = string[] & { cutLines?: boolean };

// One escape of the view (`\\`, `\"`, `\n`, `\xHH`, `\uHHHH`, `\u{H...}`) or one character.
const shownUnit = /\\(?:x[0-9a-f]{2}|u\{[0-9a-f]{1,6}\}|u[0-9a-f]{4}|[\s\S])|[\s\S]/gu;

/** `line`, or its first part and how much is left out, when it is longer than `maxLength`; never cut inside an escape. */
function cutLine(line: string, maxLength: number): string {
  if (line.length <= maxLength) return line;
  const room = maxLength - 60;
  let kept = 0;
  for (const unit of line.slice(0, room + 12).matchAll(shownUnit)) {
    if (unit.index + unit[0].length > room) break;
    kept = unit.index + unit[0].length;
  }
  const quoted = /^[^"]*: "/.test(line) && line.endsWith('"');
  return `${line.slice(0, kept)}${quoted ? '"' : ""}… (${line.length - kept} more characters not shown)`;
}
