/**
 * How an approval question about several numbered actions (the parallel
 * calls of one step) is answered: `approve` approves every action it shows,
 * `deny` denies them all, and, where the service carries free text,
 * `approve_some` approves only the actions whose numbers the answer's text
 * lists (`1,3`, optionally followed by `: a note`). The question carries its
 * items in `metadata.items` (`[{number, tool, tool_call_id, fingerprint}]`),
 * so a channel that can (the messaging simulator's inbox page and terminal)
 * offers a choice per item.
 */
export const batchAnswer = {
  approveAll: { id: "approve", label: "Approve all" },
  denyAll: { id: "deny", label: "Deny all" },
  approveSome: { id: "approve_some", label: "Approve only the numbers I write" },
  metadataKey: "items",
} as const;

/** The actions an `approve_some` answer approves, and the note written after them. */
export type ItemSelection =
  | { ok: true; numbers: number[]; note?: string }
  | { ok: false; problem: string };

/**
 * The longest `approve_some` answer text read: the numbers and a note of up
 * to 2,000 characters (the inbox page's longest note). A longer one is
 * refused before it is read.
 */
export const maximumItemSelectionLength = 2500;

// An action number has at most this many digits: no question holds a million actions.
const maximumNumberDigits = 6;

/**
 * Reads the text of an `approve_some` answer: the item numbers (`1,3` or
 * `1 3`), each one of `offered` when given, then an optional `: note`.
 * Anything else is a problem, so nothing is approved on a guess. The text
 * is a person's (or whoever answered): it is refused when longer than
 * {@link maximumItemSelectionLength}, and read once, left to right, in time
 * linear in its length (no backtracking regular expression). This is the
 * one reader of such answers: the approver, the inbox page and the
 * terminal all use it.
 */
export function parseItemSelection(text: string, offered?: readonly number[]): ItemSelection {
  if (text.length > maximumItemSelectionLength) {
    return {
      ok: false,
      problem: `the answer is ${text.length} characters long, more than the ${maximumItemSelectionLength} an answer choosing actions may have`,
    };
  }
  const read = scanItemSelection(text);
  if ("problem" in read) {
    return {
      ok: false,
      problem: `"${text.trim().slice(0, 60)}" is not a list of action numbers such as 1,3 (${read.problem})`,
    };
  }
  const numbers = [...new Set(read.numbers)].sort((a, b) => a - b);
  const unknown = offered ? numbers.filter((number) => !offered.includes(number)) : [];
  if (unknown.length > 0) {
    return {
      ok: false,
      problem: `the question has no action numbered ${unknown.join(", ")} (it asks about ${offered?.join(", ")})`,
    };
  }
  const note = read.note?.trim();
  return { ok: true, numbers, ...(note ? { note } : {}) };
}

/**
 * One pass over `text`: numbers separated by a comma or by spaces (spaces
 * around a comma allowed), then the end or `:` and the note.
 */
function scanItemSelection(
  text: string,
): { numbers: number[]; note?: string } | { problem: string } {
  const numbers: number[] = [];
  let index = skipSpaces(text, 0);
  for (;;) {
    const start = index;
    while (index < text.length && isDigit(text.charCodeAt(index))) index += 1;
    if (index === start) {
      return {
        problem:
          index >= text.length
            ? "a number is missing at its end"
            : `${describeCharacterAt(text, index)} where an action number should be`,
      };
    }
    if (index - start > maximumNumberDigits) {
      return { problem: `${text.slice(start, start + 12)}… is not the number of an action` };
    }
    numbers.push(Number(text.slice(start, index)));
    const afterNumber = index;
    index = skipSpaces(text, index);
    if (index >= text.length) return { numbers };
    const character = text[index];
    if (character === ":") return { numbers, note: text.slice(index + 1) };
    if (character === ",") {
      index = skipSpaces(text, index + 1);
      continue;
    }
    // Spaces alone separate two numbers; anything else after a number is not an answer.
    if (index > afterNumber && isDigit(text.charCodeAt(index))) continue;
    return {
      problem: `${describeCharacterAt(text, index)} after the number ${text.slice(start, afterNumber)}`,
    };
  }
}

function skipSpaces(text: string, from: number): number {
  let index = from;
  while (index < text.length && /\s/.test(text.charAt(index))) index += 1;
  return index;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function describeCharacterAt(text: string, index: number): string {
  return `${JSON.stringify(String.fromCodePoint(text.codePointAt(index) ?? 0))} at character ${index + 1}`;
}

/** The text of an `approve_some` answer choosing `numbers`, with the person's note after them. */
export function formatItemSelection(numbers: readonly number[], note?: string): string {
  const list = numbers.join(",");
  return note !== undefined && note.trim() !== "" ? `${list}: ${note.trim()}` : list;
}

/** One item of a batch question, as its metadata lists it. */
export interface BatchItem {
  number: number;
  /** The tool the action runs (the sender's word: untrusted). */
  tool: string;
}

/**
 * The items a question's metadata lists (`metadata.items`), or undefined
 * when it lists none: a question about one action, or metadata in another
 * shape, which then offers no choice per item.
 */
export function readBatchItems(metadata: unknown): BatchItem[] | undefined {
  if (typeof metadata !== "object" || metadata === null) return undefined;
  const items = (metadata as Record<string, unknown>)[batchAnswer.metadataKey];
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const read: BatchItem[] = [];
  for (const item of items) {
    const { number, tool } = (item ?? {}) as Record<string, unknown>;
    if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) return undefined;
    read.push({ number, tool: typeof tool === "string" ? tool : "" });
  }
  return read;
}
