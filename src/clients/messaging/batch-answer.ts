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

// Numbers separated by commas or spaces, then optionally ": note".
const selectionPattern = /^\s*(\d+(?:\s*[,\s]\s*\d+)*)\s*(?::([\s\S]*))?$/;

/**
 * Reads the text of an `approve_some` answer: the item numbers (`1,3` or
 * `1 3`), each one of `offered` when given, then an optional `: note`.
 * Anything else is a problem, so nothing is approved on a guess.
 */
export function parseItemSelection(text: string, offered?: readonly number[]): ItemSelection {
  const match = selectionPattern.exec(text);
  if (!match) {
    return {
      ok: false,
      problem: `"${text.trim().slice(0, 60)}" is not a list of action numbers such as 1,3`,
    };
  }
  const numbers = [...new Set((match[1] ?? "").split(/[\s,]+/).map(Number))].sort((a, b) => a - b);
  const unknown = offered ? numbers.filter((number) => !offered.includes(number)) : [];
  if (unknown.length > 0) {
    return {
      ok: false,
      problem: `the question has no action numbered ${unknown.join(", ")} (it asks about ${offered?.join(", ")})`,
    };
  }
  const note = match[2]?.trim();
  return { ok: true, numbers, ...(note ? { note } : {}) };
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
