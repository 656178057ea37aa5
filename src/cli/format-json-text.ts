import { redactText, redactValue } from "../internal/redact.js";
import { editableJson, quoteUntrustedValue } from "../internal/untrusted-text.js";

/**
 * JSON text from a model or a service (a tool call's arguments, a tool
 * message) as a person reads it: the JSON itself, compact or indented by
 * `indent`, escaped once ({@link formatJsonValue}) rather than quoted again
 * as a string. A person's note that the agent quoted for the model
 * (`person_note`) shows as they typed it. Text that is not JSON is quoted
 * and escaped as any untrusted value. Secrets are redacted.
 */
export function formatJsonText(text: string, indent?: number): string {
  const parsed = parseJsonText(text);
  return parsed ? formatJsonValue(parsed.value, indent) : quoteUntrustedValue(redactText(text));
}

/**
 * A value as JSON for a person: compact or indented by `indent`, every
 * character that could act on the terminal written as a JSON `\u` escape
 * ({@link editableJson}), secrets redacted.
 */
export function formatJsonValue(value: unknown, indent?: number): string {
  try {
    return editableJson(redactValue(value), indent);
  } catch {
    return quoteUntrustedValue(redactText(String(value)));
  }
}

/**
 * JSON text read as a person is to see it (a tool message's `person_note`
 * as typed); `undefined` when it is not JSON.
 */
export function parseJsonText(text: string): { value: unknown } | undefined {
  try {
    return { value: withTypedNote(JSON.parse(text)) };
  } catch {
    return undefined;
  }
}

/**
 * A tool message holds the person's note as the agent quoted it for the
 * model (`"\"looks right\""`): the note as typed, when the quoted form
 * reads back to exactly that text; the message unchanged otherwise.
 */
function withTypedNote(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const message = value as Record<string, unknown>;
  const quoted = message.person_note;
  if (typeof quoted !== "string") return value;
  const note = unquote(quoted);
  return note === undefined ? value : { ...message, person_note: note };
}

/** The text `quoteUntrustedValue` quoted, when `quoted` is exactly its output; read in one pass. */
function unquote(quoted: string): string | undefined {
  if (quoted.length < 2 || !quoted.startsWith('"') || !quoted.endsWith('"')) return undefined;
  const body = quoted.slice(1, -1);
  let text = "";
  for (let index = 0; index < body.length; index++) {
    const character = body[index]!;
    if (character !== "\\") {
      text += character;
      continue;
    }
    index++;
    const simple = simpleEscapes[body[index] ?? ""];
    if (simple !== undefined) {
      text += simple;
      continue;
    }
    const pattern =
      body[index] === "x" ? byteEscape : body[index] === "u" ? unicodeEscape : undefined;
    if (!pattern) return undefined;
    pattern.lastIndex = index + 1;
    const match = pattern.exec(body);
    const codePoint = match ? Number.parseInt(match[1] ?? match[2] ?? "", 16) : Number.NaN;
    if (!match || !(codePoint <= 0x10ffff)) return undefined;
    text += String.fromCodePoint(codePoint);
    index += match[0].length;
  }
  // Only a value quoted exactly this way is read back: anything else shows as it was stored.
  return quoteUntrustedValue(text) === quoted ? text : undefined;
}

const simpleEscapes: Readonly<Record<string, string>> = {
  "\\": "\\",
  '"': '"',
  n: "\n",
  r: "\r",
  t: "\t",
};
// Sticky: each is tried where the escape's digits start, so the note is read in one pass.
const byteEscape = /([0-9a-f]{2})/y;
const unicodeEscape = /\{([0-9a-f]{1,6})\}|([0-9a-f]{4})/y;
