/**
 * The one home for showing untrusted text (a tool's arguments, what a service
 * answered) to a person: in an approval question sent through the messaging
 * service, at the terminal, in an HTML page (which HTML-escapes on top).
 *
 * Every character that could change how the rest of a message reads, or that
 * a person cannot see, is written out as a visible escape instead of passed
 * through:
 *
 * - every C0 control (U+0000 to U+001F, line breaks and tabs included: a
 *   value is shown on one line), DEL and every C1 control (U+0080 to
 *   U+009F). An ANSI escape sequence is harmless once its introducer (ESC or
 *   the C1 CSI) is written out: `\x1b[31m` shows as those seven characters;
 * - every format character (Unicode category Cf): bidirectional marks,
 *   embeddings, overrides and isolates (`\u202e`), zero-width characters
 *   (`\u200b`, the joiners `\u200c` `\u200d`, `\u2060`, `\ufeff`), the soft
 *   hyphen, invisible tag characters (`\u{e0041}`);
 * - the line and paragraph separators (`\u2028`, `\u2029`);
 * - a lone surrogate, which is no character at all (`\ud800`);
 * - the backslash itself, doubled, so every escape reads one way: `\\x1b` in
 *   the output was the four characters `\x1b` in the value, `\x1b` was ESC.
 *
 * Escapes are `\n`, `\r`, `\t`, `\xHH` up to U+00FF, `\uHHHH` up to U+FFFF
 * and `\u{HHHHH}` beyond, lower-case hex, as JavaScript writes them. All
 * other text (letters of any script, emoji, punctuation, spaces) is kept.
 * The result never contains a line break or a character that acts on the
 * text around it.
 *
 * @example
 * escapeUntrustedText("https://a.example/\u202egpj.exe\x1b[2K\u2028Reply approve")
 * // => "https://a.example/\\u202egpj.exe\\x1b[2K\\u2028Reply approve"
 */
export function escapeUntrustedText(text: string): string {
  return text.replace(unsafeCharacter, escapeCharacter);
}

/**
 * An untrusted value ready to stand on its own line of a message: escaped as
 * by {@link escapeUntrustedText}, a double quote inside written `\"`, and the
 * whole wrapped in double quotes. A value holding "Reply approve or deny" or
 * "This can be undone" then reads as data, not as a line of the question,
 * and nothing it holds can end the quotation early.
 *
 * @example
 * quoteUntrustedValue('done."\nReply approve') // => '"done.\\"\\nReply approve"'
 */
export function quoteUntrustedValue(text: string): string {
  return `"${escapeUntrustedText(text).replaceAll('"', '\\"')}"`;
}

/**
 * A whole text of several lines from an untrusted source, such as an
 * approval question as a messaging service delivered it, ready to print
 * line by line: each line escaped as by {@link escapeUntrustedText}, except
 * that the line breaks between lines (`\n`, `\r\n`) are kept and a
 * backslash is left as it is (the text's author escaped its own values, and
 * doubling their backslashes would show `\\x1b` for an escaped ESC). Use
 * it to show a message; use {@link quoteUntrustedValue} for a value inside
 * one.
 *
 * @example
 * escapeUntrustedLines("Delete 1 callback\n\x1b[2K\"https://a\\u202e\"")
 * // => 'Delete 1 callback\n\\x1b[2K"https://a\\u202e"'
 */
export function escapeUntrustedLines(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(actsOnText, escapeCharacter))
    .join("\n");
}

// Controls, format characters, line/paragraph separators and lone surrogates
// (a surrogate only matches on its own in a `u` regular expression); then the
// same and the backslash that starts an escape.
const actsOnText = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const unsafeCharacter = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\\]/gu;

const shortEscapes: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

function escapeCharacter(character: string): string {
  const short = shortEscapes[character];
  if (short !== undefined) return short;
  const codePoint = character.codePointAt(0) ?? 0;
  const hex = codePoint.toString(16);
  if (codePoint <= 0xff) return `\\x${hex.padStart(2, "0")}`;
  if (codePoint <= 0xffff) return `\\u${hex.padStart(4, "0")}`;
  return `\\u{${hex}}`;
}
