import { domainToASCII } from "node:url";

/**
 * The one home for showing untrusted text (a tool's arguments, what a service
 * answered) to a person: in an approval question sent through the messaging
 * service, at the terminal, in an HTML page (which HTML-escapes on top).
 *
 * Every character that could change how the rest of a message reads, that a
 * person cannot see, or that passes for the quotation mark around a value is
 * written out as a visible escape instead of passed through:
 *
 * - every C0 control (U+0000 to U+001F, line breaks and tabs included: a
 *   value is shown on one line), DEL and every C1 control (U+0080 to
 *   U+009F). An ANSI escape sequence is harmless once its introducer (ESC or
 *   the C1 CSI) is written out: `\x1b[31m` shows as those seven characters;
 * - every format character (Unicode category Cf): bidirectional marks,
 *   embeddings, overrides and isolates (`\u202e`), zero-width characters
 *   (`\u200b`, the joiners `\u200c` `\u200d`, `\u2060`, `\ufeff`), the soft
 *   hyphen, invisible tag characters (`\u{e0041}`);
 * - every other character Unicode says to draw as nothing
 *   (Default_Ignorable_Code_Point: the Hangul fillers `\u3164`, `\u115f`,
 *   `\u1160`, `\uffa0`, variation selectors, the combining grapheme joiner),
 *   and the braille blank `\u2800`;
 * - every space but the ordinary one (U+0020): the no-break space `\xa0`,
 *   the wide spaces `\u2000` to `\u200a`, `\u202f`, `\u205f`, the
 *   ideographic space `\u3000`; and, in a run of ordinary spaces, every
 *   space after the fourth (`\x20`), so no run of blanks can push the rest
 *   of a value onto a line of its own;
 * - every combining mark (Unicode category M: Mn, Mc and Me), on a letter
 *   or not: an overlay such as U+0336 COMBINING LONG STROKE OVERLAY strikes
 *   the text under it through, others disguise the character they sit on
 *   or spill over the lines around it. Accented letters typed as one
 *   character (`é`, U+00E9, the usual form) are kept; an accent typed as a
 *   letter and a mark shows as `e\u0301`, and so does a script written with
 *   marks (Devanagari, Thai);
 * - the characters that pass for a double quote: `\uff02`, the curly quotes
 *   `\u201c` to `\u201f`, `\u2033`, `\u2036`, `\u02ba`, `\u02dd`, `\u02ee`,
 *   `\u05f4`, `\u275d`, `\u275e`, `\u3003`, `\u301d` to `\u301f`,
 *   `\u{1f676}` to `\u{1f678}`, so a value never seems to close its
 *   quotation;
 * - the line and paragraph separators (`\u2028`, `\u2029`);
 * - a lone surrogate, which is no character at all (`\ud800`);
 * - the backslash itself, doubled, so every escape reads one way: `\\x1b` in
 *   the output was the four characters `\x1b` in the value, `\x1b` was ESC.
 *
 * The host of every URL (`scheme://host`) that holds a character outside
 * ASCII is shown in its ASCII (punycode) form, as a connection to it would
 * use it (`node:url` `domainToASCII`): `https://аpple.com/` (a Cyrillic
 * `а`) shows as `https://xn--pple-43d.com/`.
 *
 * Escapes are `\n`, `\r`, `\t`, `\xHH` up to U+00FF, `\uHHHH` up to U+FFFF
 * and `\u{HHHHH}` beyond, lower-case hex, as JavaScript writes them. All
 * other text (letters of any script, emoji, punctuation, single spaces) is
 * kept. The result never contains a line break or a
 * character that acts on the text around it.
 *
 * @example
 * escapeUntrustedText("https://a.example/\u202egpj.exe\x1b[2K\u2028Reply approve")
 * // => "https://a.example/\\u202egpj.exe\\x1b[2K\\u2028Reply approve"
 */
export function escapeUntrustedText(text: string): string {
  return asciiHosts(text).replace(unsafeCharacter, escapeCharacter);
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
  return asciiHosts(text)
    .split(/\r?\n/)
    .map((line) => line.replace(actsOnText, escapeCharacter))
    .join("\n");
}

/**
 * An untrusted value as JSON a person can read and change, such as the
 * arguments of an action they may edit before approving it: every character
 * {@link escapeUntrustedLines} would write out is written as a JSON `\u`
 * escape instead, so nothing in it acts on the text around it or hides, and
 * the text still parses back to exactly the same value. `indent` as for
 * `JSON.stringify`; line breaks only ever come from it. Throws what
 * `JSON.stringify` throws (a cycle, a `BigInt`).
 *
 * @example
 * editableJson({ url: "https://a.example/\u202egpj.exe" })
 * // => '{"url":"https://a.example/\\u202egpj.exe"}'
 */
export function editableJson(value: unknown, indent?: number): string {
  // JSON.stringify already escapes C0 controls and lone surrogates inside strings;
  // outside strings it writes only ASCII punctuation, digits, letters and the indentation.
  const json = JSON.stringify(value, null, indent) ?? "null";
  return json.replace(actsOnTextInJson, (character) => {
    let escaped = "";
    // A JSON escape names one UTF-16 unit: a character beyond U+FFFF takes two.
    for (let index = 0; index < character.length; index += 1) {
      escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, "0")}`;
    }
    return escaped;
  });
}

// Controls, format characters, line/paragraph separators and lone surrogates
// (a surrogate only matches on its own in a `u` regular expression), what is
// drawn as nothing, spaces other than U+0020, double-quote look-alikes, and
// every combining mark.
const actsOnTextSource = [
  String.raw`[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{M}\p{Default_Ignorable_Code_Point}\u2800]`,
  String.raw`(?!\x20)\p{Zs}`,
  String.raw`[\uff02\u201c-\u201f\u2033\u2036\u02ba\u02dd\u02ee\u05f4\u275d\u275e\u3003\u301d-\u301f\u{1f676}-\u{1f678}]`,
].join("|");
const actsOnText = new RegExp(actsOnTextSource, "gu");
// In JSON text a line break or tab is indentation: inside strings JSON.stringify escaped them already.
const actsOnTextInJson = new RegExp(String.raw`(?![\n\t])(?:${actsOnTextSource})`, "gu");
// On one line, also the backslash that starts an escape and a fifth space in a row.
const unsafeCharacter = new RegExp(String.raw`${actsOnTextSource}|\\|(?<=\x20{4})\x20`, "gu");

// `://` after a scheme, and the authority after it, up to the path, query or
// fragment. The search starts at `://` and looks back for the scheme, so it
// runs in linear time (starting at every letter that could begin a scheme
// rescans `a.a.a.…` once per letter).
const urlAuthority = /:\/\/(?<=\b[a-z][a-z0-9+.-]*:\/\/)([^/?#\s"'<>\\]+)/giu;

/** `text` with the host of every URL that holds a non-ASCII character in its ASCII (punycode) form. */
function asciiHosts(text: string): string {
  return text.replace(urlAuthority, (url: string, authority: string) => {
    const at = authority.lastIndexOf("@");
    const userInfo = authority.slice(0, at + 1);
    const hostAndPort = authority.slice(at + 1);
    const port = /:\d*$/.exec(hostAndPort)?.[0] ?? "";
    const host = hostAndPort.slice(0, hostAndPort.length - port.length);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is the point.
    if (/^[\x00-\x7f]*$/.test(host)) return url;
    const ascii = domainToASCII(host);
    // A host no URL parser takes stays as it is, to be escaped character by character.
    return ascii === "" ? url : `://${userInfo}${ascii}${port}`;
  });
}

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

/**
 * An untrusted value as an approval's one view shows it (its detail values,
 * its target, the lines of a text): escaped as by {@link escapeUntrustedText},
 * with three differences that make the escaping exact to undo
 * ({@link readShownText}) and never ambiguous:
 *
 * - a double quote is written `\"`, so the value can stand inside quotes;
 * - in the authority of a URL (`scheme://` up to the path) every character
 *   outside ASCII is written as an escape (`https://\u0430pple.com/` for a
 *   Cyrillic `а`) instead of as punycode, so a look-alike host stands out and
 *   the value still reads back exactly;
 * - the text `[redacted]` is written `\x5bredacted]`: in a view it only ever
 *   begins the placeholder of a secret, never a value.
 *
 * @example
 * escapeShownText('https://а.example/"\u202e') // => 'https://\\u0430.example/\\"\\u202e'
 */
export function escapeShownText(text: string): string {
  return escapeShown(text).replaceAll('"', '\\"');
}

/**
 * A line of a text (a page, a diff) as an approval's one view shows it,
 * behind a gutter rather than inside quotes: escaped as by
 * {@link escapeShownText}, but a double quote is kept as it is.
 * {@link readShownText} undoes it exactly too.
 *
 * @example
 * escapeShownLine('{"url":"https://а.example/"}') // => '{"url":"https://\\u0430.example/"}'
 */
export function escapeShownLine(text: string): string {
  return escapeShown(text);
}

function escapeShown(text: string): string {
  let shown = "";
  let last = 0;
  for (const match of text.matchAll(urlAuthority)) {
    // The match is `://` and the authority after it (group 1).
    const end = match.index + match[0].length;
    const start = end - (match[1]?.length ?? 0);
    shown += escapeShownPart(text.slice(last, start));
    shown += escapeShownPart(text.slice(start, end)).replace(beyondAscii, escapeCharacter);
    last = end;
  }
  return shown + escapeShownPart(text.slice(last));
}

/**
 * A string as a JSON string literal in an approval's one view: what
 * {@link escapeShownText} writes out is written as a JSON `\u` escape, so
 * `JSON.parse` gives back exactly the string.
 *
 * @example
 * shownJsonString("https://а.example/\u202e") // => '"https://\\u0430.example/\\u202e"'
 */
export function shownJsonString(text: string): string {
  const json = JSON.stringify(text);
  let shown = "";
  let last = 0;
  for (const match of json.matchAll(urlAuthority)) {
    // The match is `://` and the authority after it (group 1).
    const end = match.index + match[0].length;
    const start = end - (match[1]?.length ?? 0);
    shown += json.slice(last, start);
    shown += json.slice(start, end).replace(beyondAscii, jsonEscape);
    last = end;
  }
  return (shown + json.slice(last))
    .replace(actsOnTextInJson, jsonEscape)
    .replaceAll(redactedText, "\\u005bredacted]");
}

/**
 * The value {@link escapeShownText} was given, from what it wrote: `\\`,
 * `\"`, `\n`, `\r`, `\t`, `\xHH`, `\uHHHH` and `\u{H...}` are read back; every
 * other character stands for itself.
 *
 * @example
 * readShownText('https://\\u0430.example/\\"') // => 'https://а.example/"'
 */
export function readShownText(shown: string): string {
  return shown.replace(
    shownEscape,
    (_escape, hex2?: string, braced?: string, hex4?: string, short?: string) => {
      if (hex2 !== undefined) return String.fromCharCode(Number.parseInt(hex2, 16));
      if (braced !== undefined) return String.fromCodePoint(Number.parseInt(braced, 16));
      if (hex4 !== undefined) return String.fromCharCode(Number.parseInt(hex4, 16));
      return short === "n" ? "\n" : short === "r" ? "\r" : short === "t" ? "\t" : (short ?? "");
    },
  );
}

const redactedText = "[redacted]";
const beyondAscii = /[\u0080-\u{10ffff}]/gu;
const shownEscape = /\\(?:x([0-9a-f]{2})|u\{([0-9a-f]{1,6})\}|u([0-9a-f]{4})|([\\"nrt]))/g;

function escapeShownPart(text: string): string {
  return text.replace(unsafeCharacter, escapeCharacter).replaceAll(redactedText, "\\x5bredacted]");
}

/** Every UTF-16 unit of `text` as a JSON `\u` escape: `"ab"` gives `\u0061\u0062`. */
export function jsonEscape(text: string): string {
  let escaped = "";
  // A JSON escape names one UTF-16 unit: a character beyond U+FFFF takes two.
  for (let index = 0; index < text.length; index += 1) {
    escaped += `\\u${text.charCodeAt(index).toString(16).padStart(4, "0")}`;
  }
  return escaped;
}

/** `text` safe inside HTML text and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}
