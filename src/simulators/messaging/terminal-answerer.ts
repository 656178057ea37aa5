import { createInterface, type Interface } from "node:readline";
import {
  type BatchItem,
  batchAnswer,
  formatItemSelection,
  parseItemSelection,
  readBatchItems,
} from "../../clients/messaging/batch-answer.js";
import { editAnswer } from "../../clients/messaging/messaging-requests.js";
import {
  editableJson,
  escapeUntrustedLines,
  escapeUntrustedText,
} from "../../internal/untrusted-text.js";
import type { AnswerChoice, AnswerFunction, InteractionQuestion } from "./answer-mode.js";
import { checkEditedArguments } from "./check-edited-arguments.js";
import { readQuestionAsker } from "./question-asker.js";

/** Streams of {@link terminalAnswerer}. */
export interface TerminalAnswererOptions {
  /** Where the person types. @default process.stdin */
  input?: NodeJS.ReadableStream;
  /** Where questions are printed. @default process.stdout */
  output?: NodeJS.WritableStream;
}

/** An answer function that asks at the terminal; `close()` releases the input. */
export interface TerminalAnswerer extends AnswerFunction {
  close(): void;
}

/** Option id given to a typed answer when the interaction offers no options. */
export const freeTextOptionId = "free_text";

/** The option chosen for the person when the input ends: no answer is a refusal. */
export const refusalOptionId = "deny";

/**
 * An answer mode for the messaging simulator that prints each interaction's
 * text and options and reads the person's choice: the option number, its id
 * or its label, optionally followed by `: comment` (kept as the answer text).
 * Choosing "Approve with changes" (`edit`) asks for the changed arguments
 * as JSON on one line (or takes them after the choice, `3: {...}`); the
 * question shows the current ones (`metadata.arguments`) to start from.
 * Questions are asked one at a time. When the input ends (Ctrl-D, a closed
 * pipe) each question still open is refused at once, with a line saying so:
 * the `deny` option is chosen for it (an interaction offering no `deny`
 * stays pending). Call `close()` when done so the input no longer holds the
 * process; questions still open then stay pending, and nothing more is
 * printed.
 *
 * @example
 * const answerer = terminalAnswerer();
 * const messaging = await startMessagingSimulator({ answer: answerer });
 */
export function terminalAnswerer(options: TerminalAnswererOptions = {}): TerminalAnswerer {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const bufferedLines: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  let reader: Interface | undefined;
  let ended = false;
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();

  const startReader = (): Interface => {
    if (reader) return reader;
    const created = createInterface({ input, terminal: false });
    created.on("line", (line) => {
      const next = waiting.shift();
      if (next) next(line);
      else bufferedLines.push(line);
    });
    created.on("close", () => {
      ended = true;
      for (const next of waiting.splice(0)) next(undefined);
    });
    reader = created;
    return created;
  };

  /**
   * The next line typed; undefined when the input ended, or the question's
   * new state when it closed (its signal aborted) while waiting for it.
   */
  const nextLine = (signal: AbortSignal | undefined): Promise<string | undefined | Closed> => {
    if (signal?.aborted) return Promise.resolve({ closed: String(signal.reason) });
    const buffered = bufferedLines.shift();
    if (buffered !== undefined) return Promise.resolve(buffered);
    if (ended) return Promise.resolve(undefined);
    startReader().resume();
    return new Promise((resolve) => {
      const take = (line: string | undefined) => {
        signal?.removeEventListener("abort", leave);
        resolve(line);
      };
      // The line the person types next belongs to the next question, not to this closed one.
      const leave = () => {
        const at = waiting.indexOf(take);
        if (at !== -1) waiting.splice(at, 1);
        if (waiting.length === 0) reader?.pause();
        resolve({ closed: String(signal?.reason) });
      };
      signal?.addEventListener("abort", leave, { once: true });
      waiting.push(take);
    });
  };

  const ask = async (
    question: InteractionQuestion,
    signal: AbortSignal | undefined,
  ): Promise<AnswerChoice | undefined> => {
    // Closed while waiting for its turn: never shown, nothing to answer.
    if (signal?.aborted) return undefined;
    output.write(formatQuestion(question));
    for (;;) {
      const line = await nextLine(signal);
      if (line === undefined) return closed ? undefined : answerAtEndOfInput(question, output);
      if (typeof line === "object") return leaveClosed(line, output);
      const parsed = parseChoice(line, question);
      if (parsed !== undefined && "problem" in parsed) {
        output.write(`Not read: ${escapeUntrustedText(parsed.problem)}. ${batchPrompt(question)}`);
        continue;
      }
      const choice =
        parsed?.option_id === editAnswer.optionId
          ? await askForEdit(parsed, question.metadata, signal)
          : parsed;
      if (choice === "input ended") {
        return closed ? undefined : answerAtEndOfInput(question, output);
      }
      if (typeof choice === "object" && "closed" in choice) return leaveClosed(choice, output);
      if (choice) {
        if (waiting.length === 0) reader?.pause();
        return choice;
      }
      output.write(parsed ? optionsPrompt(question) : retryPrompt(question));
    }
  };

  /**
   * "Approve with changes": the changed arguments, as JSON on one line,
   * typed after the choice (`3: {...}`) or asked for now. A change that
   * cannot run (not JSON, not fitting the tool's parameters the question
   * carries: {@link checkEditedArguments}) is the person's to correct, asked
   * again with what is wrong, never sent; an empty line goes back to the
   * options (undefined).
   */
  const askForEdit = async (
    choice: AnswerChoice,
    metadata: Readonly<Record<string, unknown>>,
    signal: AbortSignal | undefined,
  ): Promise<AnswerChoice | Closed | "input ended" | undefined> => {
    let typed = choice.text;
    if (typed === undefined) output.write(editPrompt);
    for (;;) {
      if (typed === undefined) {
        const line = await nextLine(signal);
        if (line === undefined) return "input ended";
        if (typeof line === "object") return line;
        typed = line.trim();
        if (typed === "") return undefined;
      }
      const checked = checkEditedArguments(typed, metadata);
      if (checked.ok) return { option_id: choice.option_id, text: checked.text };
      output.write(
        `Not sent: ${escapeUntrustedText(checked.problem)}. Type the changed arguments again, or an empty line to go back: `,
      );
      typed = undefined;
    }
  };

  const answer = (
    question: InteractionQuestion,
    context?: { signal: AbortSignal },
  ): Promise<AnswerChoice | undefined> => {
    const result = queue.then(() => ask(question, context?.signal));
    queue = result.catch(() => undefined);
    return result;
  };
  return Object.assign(answer, {
    close: () => {
      closed = true;
      reader?.close();
    },
  });
}

/** The question closed while at the prompt: its new state (`canceled`, `expired`, ...). */
interface Closed {
  closed: string;
}

const closedLines: Readonly<Record<string, string>> = {
  canceled:
    "This question was withdrawn by the sender (its run was cancelled or stopped waiting): it takes no answer now.",
  expired: "This question expired before you answered: it takes no answer now.",
  answered: "This question was answered elsewhere (on the inbox page).",
  failed: "This question could not be delivered: it takes no answer.",
};

/** Leaves the prompt of a question that closed, with a line saying why (nothing when the simulator stops). */
function leaveClosed(closed: Closed, output: NodeJS.WritableStream): undefined {
  const line = closedLines[closed.closed];
  if (line !== undefined) output.write(`\n(${line})\n`);
  return undefined;
}

/** No more input can come: refuse now rather than leave the question waiting for its timeout. */
function answerAtEndOfInput(
  question: InteractionQuestion,
  output: NodeJS.WritableStream,
): AnswerChoice | undefined {
  if (question.options.some((option) => option.id === refusalOptionId)) {
    output.write("\n(no more input: refused)\n");
    // No text: nobody wrote a note, and none is recorded as theirs.
    return { option_id: refusalOptionId };
  }
  output.write("\n(no more input and no option to refuse: the interaction stays pending)\n");
  return undefined;
}

// Everything shown comes from whoever sent the message: control characters,
// ANSI sequences and bidirectional overrides are written out, never obeyed.
function formatQuestion(question: InteractionQuestion): string {
  const text = escapeUntrustedLines(question.text).replaceAll("\n", "\n  ");
  const lines = ["", `Interaction ${escapeUntrustedText(question.interaction_id)}:`];
  const asker = readQuestionAsker(question.metadata);
  if (asker.asked) {
    const { runId, tool, toolCallId, task } = asker;
    lines.push(
      `  Run: ${runId !== undefined ? escapeUntrustedText(runId) : "not saved (no run id)"}`,
      ...(tool
        ? [
            `  Tool: ${escapeUntrustedText(tool)}${toolCallId ? ` (call ${escapeUntrustedText(toolCallId)})` : ""}`,
          ]
        : []),
      ...(task ? [`  Task: ${escapeUntrustedText(task)}`] : []),
    );
  }
  lines.push(`  ${text}`);
  // The metadata (fingerprint, ids) is for machines; the text says what a person needs.
  const items = readBatchItems(question.metadata);
  if (items && question.options.length > 0) {
    lines.push(
      `Actions: ${items.map((item) => `${item.number}${item.tool === "" ? "" : ` (${escapeUntrustedText(item.tool)})`}`).join(", ")}`,
      batchPrompt(question),
    );
  } else if (question.options.length === 0) {
    lines.push("Type your answer: ");
  } else {
    lines.push("Options:");
    question.options.forEach((option, index) => {
      lines.push(
        `  ${index + 1}) ${escapeUntrustedText(option.label)} [${escapeUntrustedText(option.id)}]`,
      );
    });
    lines.push(...editLines(question));
    lines.push(optionsPrompt(question));
  }
  return lines.join("\n");
}

/** How to change the action, and its arguments now, when the question offers an edit. */
function editLines(question: InteractionQuestion): string[] {
  const index = question.options.findIndex((option) => option.id === editAnswer.optionId);
  if (index === -1) return [];
  const lines = [
    `To change the action before approving it, choose ${index + 1}, then type its whole arguments as JSON on one line.`,
  ];
  if (Object.hasOwn(question.metadata, editAnswer.metadataKey)) {
    try {
      // As JSON that parses back to the same value, with what would act on the terminal written out.
      lines.push(`Its arguments now: ${editableJson(question.metadata[editAnswer.metadataKey])}`);
    } catch {
      // Metadata came as JSON, so it writes as JSON; the line is only a help.
    }
  }
  return lines;
}

function optionsPrompt(question: InteractionQuestion): string {
  return `Your choice (1-${question.options.length} or an option id, then ": comment" if you like): `;
}

const editPrompt =
  "The changed arguments, as JSON on one line (an empty line goes back to the options): ";

/** How to answer a question about several numbered actions. */
function batchPrompt(question: InteractionQuestion): string {
  const some = question.options.some((option) => option.id === batchAnswer.approveSome.id);
  return `Type all to approve every action, none to deny them all${some ? ", or the numbers of the actions to approve (e.g. 1,3)" : ""}; then ": comment" if you like: `;
}

function retryPrompt(question: InteractionQuestion): string {
  if (question.options.length === 0) return "Please type a non-empty answer: ";
  if (readBatchItems(question.metadata)) return `Not an answer. ${batchPrompt(question)}`;
  const ids = question.options.map((option) => escapeUntrustedText(option.id)).join(", ");
  return `Not an option. Type a number from 1 to ${question.options.length} or one of: ${ids}: `;
}

/** The choice a typed line makes; `problem` when it chose actions by number and they cannot be read. */
function parseChoice(
  line: string,
  question: InteractionQuestion,
): AnswerChoice | { problem: string } | undefined {
  const typed = line.trim();
  if (typed === "") return undefined;
  if (question.options.length === 0) return { option_id: freeTextOptionId, text: typed };
  const items = readBatchItems(question.metadata);
  if (items) return parseBatchChoice(typed, question, items);
  const separator = typed.indexOf(":");
  const head = (separator === -1 ? typed : typed.slice(0, separator)).trim();
  const comment = separator === -1 ? "" : typed.slice(separator + 1).trim();
  const wanted = head.toLowerCase();
  const option =
    (/^\d+$/.test(head) ? question.options[Number(head) - 1] : undefined) ??
    question.options.find((candidate) => candidate.id.toLowerCase() === wanted) ??
    question.options.find((candidate) => candidate.label.toLowerCase() === wanted);
  if (!option) return undefined;
  return comment ? { option_id: option.id, text: comment } : { option_id: option.id };
}

/**
 * An answer to a question about several numbered actions: `all` (or
 * `approve`), `none` (or `deny`), or the numbers of the actions to approve,
 * each one the question shows (`1,3`), then `: comment`. Anything else is
 * asked again, never guessed.
 */
function parseBatchChoice(
  typed: string,
  question: InteractionQuestion,
  items: readonly BatchItem[],
): AnswerChoice | { problem: string } | undefined {
  const offered = (id: string) => question.options.some((option) => option.id === id);
  const separator = typed.indexOf(":");
  const head = (separator === -1 ? typed : typed.slice(0, separator)).trim().toLowerCase();
  const comment = separator === -1 ? "" : typed.slice(separator + 1).trim();
  const withComment = (optionId: string): AnswerChoice =>
    comment ? { option_id: optionId, text: comment } : { option_id: optionId };
  if (["all", "approve", "approve all"].includes(head) && offered(batchAnswer.approveAll.id)) {
    return withComment(batchAnswer.approveAll.id);
  }
  if (["none", "deny", "deny all"].includes(head) && offered(batchAnswer.denyAll.id)) {
    return withComment(batchAnswer.denyAll.id);
  }
  if (!offered(batchAnswer.approveSome.id)) return undefined;
  const selection = parseItemSelection(
    typed,
    items.map((item) => item.number),
  );
  if (!selection.ok) return { problem: selection.problem };
  return {
    option_id: batchAnswer.approveSome.id,
    text: formatItemSelection(selection.numbers, selection.note),
  };
}
