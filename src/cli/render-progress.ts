import type { AgentEvent } from "../agent/agent-events.js";
import { viewOfAction } from "../agent/approval/action-view.js";
import { actionViewLines } from "../agent/approval/action-view-lines.js";
import type { ApprovalAction } from "../agent/approver.js";
import { budgetExtensionToolName } from "../agent/run-budget.js";
import type { ToolCallRecord } from "../agent/run-result.js";
import { redactText } from "../internal/redact.js";
import { escapeUntrustedText, quoteUntrustedValue } from "../internal/untrusted-text.js";
import type { TerminalAware } from "./cli-io.js";
import { formatJsonText, formatJsonValue, parseJsonText } from "./format-json-text.js";
import { formatDuration, truncate } from "./format-text.js";

/** Options of {@link ProgressRenderer}. */
export interface ProgressRendererOptions {
  /** Where progress goes: stderr. */
  stream: TerminalAware<NodeJS.WritableStream>;
  /** Redraw a ticking line every second; plain lines otherwise. @default stream.isTTY */
  live?: boolean | undefined;
  /** Pause between "still waiting" lines when not live. @default 10000 */
  plainWaitIntervalMs?: number | undefined;
  /**
   * List what an approval request is about under its summary. Off when the
   * person is asked at this terminal, where the question shows them.
   * @default true
   */
  approvalDetails?: boolean | undefined;
  /** Milliseconds since some fixed point. @default performance.now */
  now?: (() => number) | undefined;
}

interface Wait {
  toolName: string;
  startedAt: number;
  /** The person answered at this terminal; the run has yet to take the answer. */
  answered: boolean;
}

const clearLine = "\r\x1b[2K";

/**
 * Writes a run's progress as it happens, from `agent.stream()` events:
 * steps, tool calls and their outcomes, approvals with the time they wait,
 * and the model's text. On a terminal the wait is one line redrawn every
 * second; elsewhere plain lines, one every `plainWaitIntervalMs`.
 */
export class ProgressRenderer {
  readonly #stream: TerminalAware<NodeJS.WritableStream>;
  readonly #live: boolean;
  readonly #plainWaitIntervalMs: number;
  readonly #now: () => number;
  readonly #approvalDetails: boolean;
  readonly #waits = new Map<string, Wait>();
  #step = 0;
  #midLine = false;
  #tickerShown = false;
  #suspended = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ProgressRendererOptions) {
    this.#stream = options.stream;
    this.#live = options.live ?? options.stream.isTTY === true;
    this.#plainWaitIntervalMs = options.plainWaitIntervalMs ?? 10_000;
    this.#now = options.now ?? (() => performance.now());
    this.#approvalDetails = options.approvalDetails ?? true;
  }

  /** Writes what one event means. */
  handle(event: AgentEvent): void {
    if (event.type === "finish") {
      this.close();
      return;
    }
    if (event.type === "reasoning-delta" || event.type === "step-finish") return;
    if (event.stepNumber !== this.#step) {
      this.#step = event.stepNumber;
      this.line(`step ${event.stepNumber}`);
    }
    switch (event.type) {
      case "text-delta":
        this.#text(event.delta);
        return;
      case "tool-call":
        this.line(
          `  -> ${escapeUntrustedText(event.toolName)} ${truncate(formatJsonText(event.rawArguments), 100)}`,
        );
        return;
      case "approval-request":
        this.#approvalRequested(event.toolCallId, event.action);
        return;
      case "approval-result": {
        const wait = this.#endWait(event.toolCallId);
        const after = wait ? ` after ${formatDuration(this.#now() - wait.startedAt)}` : "";
        const { approval } = event;
        // The answer to the question to extend the budget, not to a tool call's.
        const what = event.toolName === budgetExtensionToolName ? "budget extension " : "";
        if (approval.outcome === "approved") {
          const by = approval.approvedBy ? ` by ${escapeUntrustedText(approval.approvedBy)}` : "";
          const rule = approval.rule ? ` by rule ${quoteUntrustedValue(approval.rule)}` : "";
          const covered = approval.coveredBy
            ? ` by the standing approval ${escapeUntrustedText(approval.coveredBy.approvalId)} (${approval.coveredBy.use} of ${approval.coveredBy.maxCalls}), not asked`
            : "";
          const standing = approval.standing
            ? `, and up to ${approval.standing.maxCalls} more like it until ${escapeUntrustedText(approval.standing.until)}`
            : "";
          const changed = approval.edited ? " with changes" : "";
          this.line(`  ${what}approved${changed}${by}${rule}${covered}${after}${standing}`);
          if (approval.edited) {
            // What runs is the person's change, not the call shown above: say so.
            const ran = truncate(formatJsonValue(approval.edited.arguments), 100);
            this.line(`  what runs instead: ${ran}`);
          }
          if (approval.note !== undefined) {
            this.line(`  their note: ${quoteUntrustedValue(truncate(approval.note, 200))}`);
          }
        } else if (approval.outcome === "expired") {
          const reason = truncate(escapeUntrustedText(approval.reason), 200);
          this.line(`  ${what}expired, not refused${after}: ${reason}`);
        } else if (approval.outcome === "refused") {
          const reason = truncate(
            escapeUntrustedText(withoutNote(approval.reason, approval.note)),
            200,
          );
          this.line(`  ${what}refused (${escapeUntrustedText(approval.code)})${after}: ${reason}`);
          if (approval.note !== undefined) {
            this.line(`  their note: ${quoteUntrustedValue(truncate(approval.note, 200))}`);
          }
        } else {
          const question =
            approval.interactionId !== undefined
              ? `interaction ${escapeUntrustedText(approval.interactionId)}`
              : `approval ${escapeUntrustedText(approval.approvalId)}`;
          this.line(`  approval pending (${question})`);
        }
        return;
      }
      case "tool-result":
        this.line(`  <- ${event.toolCall.toolName}: ${describeOutcome(event.toolCall)}`);
        return;
    }
  }

  /** Writes one line of its own, after ending any line in progress. */
  line(text: string): void {
    this.#clearTicker();
    if (this.#midLine) {
      this.#stream.write("\n");
      this.#midLine = false;
    }
    this.#stream.write(`${text}\n`);
    this.#drawTicker();
  }

  /**
   * Someone else is about to write to the terminal (the simulator asking the
   * person): stop redrawing and leave the cursor on a fresh line.
   */
  suspend(): void {
    this.#suspended = true;
    this.#clearTicker();
    if (this.#midLine) {
      this.#stream.write("\n");
      this.#midLine = false;
    }
  }

  /**
   * The person answered the question about this tool call at the terminal:
   * its wait is no longer shown, though the run takes the answer only at its
   * next look. Without an id (a question from elsewhere), the one wait there
   * is counts as answered.
   */
  answered(toolCallId: string | undefined): void {
    const wait =
      toolCallId === undefined
        ? this.#waits.size === 1
          ? [...this.#waits.values()][0]
          : undefined
        : this.#waits.get(toolCallId);
    if (wait) wait.answered = true;
  }

  /** The terminal is ours again. */
  resume(): void {
    this.#suspended = false;
    this.#drawTicker();
  }

  /** Ends the line in progress and stops the timer. */
  close(): void {
    this.#waits.clear();
    this.#stopTimer();
    this.#clearTicker();
    if (this.#midLine) {
      this.#stream.write("\n");
      this.#midLine = false;
    }
  }

  #text(delta: string): void {
    if (delta === "") return;
    this.#clearTicker();
    if (!this.#midLine) this.#stream.write("  ");
    this.#stream.write(delta.replace(/\n/g, "\n  "));
    this.#midLine = true;
  }

  #approvalRequested(toolCallId: string, action: ApprovalAction): void {
    const view = viewOfAction(action);
    const lines = actionViewLines(view);
    const undo = view.irreversible ? " (cannot be undone)" : "";
    const shownSummary = truncate(lines.summary, 200);
    this.line(
      action.toolName === budgetExtensionToolName
        ? `  ? the run's budget is spent; asking the person: ${shownSummary}`
        : `  ? approval needed for ${view.tool}: ${shownSummary}${undo}`,
    );
    if (this.#approvalDetails) {
      for (const line of lines.where) this.line(`      ${line}`);
      // Already escaped, one line each; cut without collapsing a page's indentation.
      // The tool's own details; the arguments when it gave none.
      const shown = lines.details.length > 0 ? lines.details : lines.arguments;
      for (const line of shown.slice(0, 5)) {
        this.line(`      ${line.length > 160 ? `${line.slice(0, 159)}…` : line}`);
      }
      if (shown.length > 5) this.line(`      ... and ${shown.length - 5} more lines`);
    }
    this.#waits.set(toolCallId, {
      toolName: action.toolName,
      startedAt: this.#now(),
      answered: false,
    });
    this.#startTimer();
    this.#drawTicker();
  }

  #endWait(toolCallId: string): Wait | undefined {
    const wait = this.#waits.get(toolCallId);
    this.#waits.delete(toolCallId);
    if (this.#waits.size === 0) this.#stopTimer();
    return wait;
  }

  #startTimer(): void {
    if (this.#timer) return;
    const interval = this.#live ? 1000 : this.#plainWaitIntervalMs;
    this.#timer = setInterval(() => this.#tick(), interval);
    this.#timer.unref();
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    if (this.#suspended) return;
    if (this.#live) {
      this.#clearTicker();
      this.#drawTicker();
      return;
    }
    for (const wait of this.#unanswered()) {
      this.line(
        `  still waiting for approval of ${wait.toolName}: ${formatDuration(this.#now() - wait.startedAt)}`,
      );
    }
  }

  #unanswered(): Wait[] {
    return [...this.#waits.values()].filter((wait) => !wait.answered);
  }

  #drawTicker(): void {
    const waits = this.#unanswered();
    if (!this.#live || this.#suspended || this.#midLine || waits.length === 0) return;
    const now = this.#now();
    const parts = waits.map((wait) => `${wait.toolName} ${formatDuration(now - wait.startedAt)}`);
    this.#stream.write(`  waiting for approval: ${parts.join(", ")}`);
    this.#tickerShown = true;
  }

  #clearTicker(): void {
    if (!this.#tickerShown) return;
    this.#stream.write(clearLine);
    this.#tickerShown = false;
  }
}

/** A refusal's reason without the person's note at its end: the note has a line of its own. */
function withoutNote(reason: string, note: string | undefined): string {
  if (note === undefined) return reason;
  const quoted = ` Their note: "${note}".`;
  return reason.endsWith(quoted) ? reason.slice(0, -quoted.length) : reason;
}

function describeOutcome(call: ToolCallRecord): string {
  switch (call.status) {
    case "succeeded":
      return call.approval?.outcome === "approved" && call.approval.edited
        ? `ok, as the person changed it: ${summarizeContent(editedResult(call.content))}`
        : `ok ${summarizeContent(call.content)}`;
    case "refused":
      // Refused with no approval decision: the run's tool-call budget was spent.
      return call.approval
        ? "not run (approval refused)"
        : "not run (the run's tool-call budget is spent)";
    case "expired":
      return "not run (the approval question expired; not a refusal)";
    case "unknown_tool":
      return "unknown tool";
    case "awaiting_approval":
      return "waiting for approval";
    case "outcome_unknown":
      return "outcome unknown (it had started before the run stopped)";
    case "reconciled":
      return `reconciled with the service (it had started before the run stopped): ${summarizeContent(call.content)}`;
    default:
      return `${call.status.replace("_", " ")}: ${truncate(escapeUntrustedText(call.error.message), 200)}`;
  }
}

/** An edited call's tool message holds the person's change around the result: the result. */
function editedResult(content: string): string {
  const message = parseJsonText(content)?.value as { result?: unknown } | undefined;
  if (message === undefined || typeof message !== "object" || message === null) return content;
  return typeof message.result === "string"
    ? message.result
    : (JSON.stringify(message.result) ?? content);
}

/**
 * `{"callbacks":[...12],"total":12}` -> `callbacks: 12 items, total: 12`,
 * escaped once: the keys as text, the values as JSON (a person's note as
 * they typed it), since both are what a service answered.
 */
function summarizeContent(content: string): string {
  const parsed = parseJsonText(content);
  const value = parsed?.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return parsed
      ? truncate(formatJsonValue(value), 120)
      : escapeUntrustedText(truncate(redactText(content), 120));
  }
  const parts = Object.entries(value).map(([key, inner]) => {
    const name = escapeUntrustedText(key);
    if (Array.isArray(inner))
      return `${name}: ${inner.length} item${inner.length === 1 ? "" : "s"}`;
    if (typeof inner === "object" && inner !== null) return `${name}: {...}`;
    return `${name}: ${truncate(formatJsonValue(inner), 60)}`;
  });
  return truncate(parts.join(", "), 160);
}
