/**
 * A string that a JSON Schema `pattern` (JavaScript regular expression
 * syntax) matches, built by walking the pattern once: each alternation takes
 * its first branch, each quantifier its least count, each class its first
 * member. Lookaround, backreferences and word boundaries add nothing, so a
 * pattern relying on them may not match the result: the caller checks it.
 *
 * @example
 * patternExample("^[A-Z]{3}-\\d{2}$"); // "AAA-00"
 */
export function patternExample(pattern: string): string {
  const reader = { text: pattern, at: 0 };
  return readAlternation(reader);
}

interface Reader {
  text: string;
  at: number;
}

/** What one escape or class member stands for: a character a string may use. */
const classExamples: Readonly<Record<string, string>> = {
  d: "0",
  D: "a",
  w: "a",
  W: "-",
  s: " ",
  S: "a",
};

const controlEscapes: Readonly<Record<string, string>> = {
  n: "\n",
  r: "\r",
  t: "\t",
  f: "\f",
  v: "\v",
  0: "\0",
};

function readAlternation(reader: Reader): string {
  const first = readSequence(reader);
  // Later branches are read only to move past them.
  while (reader.text[reader.at] === "|") {
    reader.at++;
    readSequence(reader);
  }
  return first;
}

function readSequence(reader: Reader): string {
  let result = "";
  for (;;) {
    const character = reader.text[reader.at];
    if (character === undefined || character === "|" || character === ")") return result;
    const atom = readAtom(reader);
    const count = readQuantifier(reader);
    result += atom.repeat(count);
  }
}

function readAtom(reader: Reader): string {
  const character = reader.text[reader.at++]!;
  switch (character) {
    case "^":
    case "$":
      return "";
    case ".":
      return "a";
    case "(":
      return readGroup(reader);
    case "[":
      return readClass(reader);
    case "\\":
      return readEscape(reader, false);
    default:
      return character;
  }
}

function readGroup(reader: Reader): string {
  let lookaround = false;
  if (reader.text[reader.at] === "?") {
    const rest = reader.text.slice(reader.at + 1);
    if (rest.startsWith(":")) reader.at += 2;
    else if (/^<[=!]/.test(rest)) {
      lookaround = true;
      reader.at += 3;
    } else if (/^[=!]/.test(rest)) {
      lookaround = true;
      reader.at += 2;
    } else if (rest.startsWith("<")) {
      skipPast(reader, ">");
    }
  }
  const inner = readAlternation(reader);
  if (reader.text[reader.at] === ")") reader.at++;
  return lookaround ? "" : inner;
}

function readQuantifier(reader: Reader): number {
  const character = reader.text[reader.at];
  let count = 1;
  if (character === "*" || character === "?") {
    reader.at++;
    count = 0;
  } else if (character === "+") {
    reader.at++;
  } else if (character === "{") {
    const match = /^\{(\d+)(,\d*)?\}/.exec(reader.text.slice(reader.at));
    if (!match) return 1;
    reader.at += match[0].length;
    count = Number(match[1]);
  } else {
    return 1;
  }
  if (reader.text[reader.at] === "?") reader.at++;
  return count;
}

function readEscape(reader: Reader, inClass: boolean): string {
  const character = reader.text[reader.at++] ?? "\\";
  const example = classExamples[character];
  if (example !== undefined) return example;
  const control = controlEscapes[character];
  if (control !== undefined) return control;
  if (character === "b") return inClass ? "\b" : "";
  if (character === "B") return "";
  if (character === "x" || character === "u") {
    const braced = /^\{([0-9a-fA-F]+)\}/.exec(reader.text.slice(reader.at));
    if (character === "u" && braced) {
      reader.at += braced[0].length;
      return String.fromCodePoint(Number.parseInt(braced[1]!, 16));
    }
    const digits = character === "x" ? 2 : 4;
    const hex = reader.text.slice(reader.at, reader.at + digits);
    if (/^[0-9a-fA-F]+$/.test(hex) && hex.length === digits) {
      reader.at += digits;
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    return character;
  }
  if (character === "p" || character === "P") {
    const property = /^\{([^}]*)\}/.exec(reader.text.slice(reader.at));
    if (property) reader.at += property[0].length;
    const name = property?.[1] ?? "";
    if (character === "P") return /^(L|Letter)/.test(name) ? "0" : "a";
    return /^(N|Nd|Number|digit)/.test(name) ? "0" : "a";
  }
  if (/[1-9]/.test(character) && !inClass) {
    // A backreference: its group's text is not kept, so it adds nothing.
    while (/\d/.test(reader.text[reader.at] ?? "")) reader.at++;
    return "";
  }
  if (character === "k" && reader.text[reader.at] === "<") {
    skipPast(reader, ">");
    return "";
  }
  return character;
}

function readClass(reader: Reader): string {
  const negated = reader.text[reader.at] === "^";
  if (negated) reader.at++;
  const members: Array<{ from: string; to: string }> = [];
  let first = true;
  while (reader.at < reader.text.length) {
    const character = reader.text[reader.at];
    if (character === "]" && !first) break;
    first = false;
    reader.at++;
    const from = character === "\\" ? readEscape(reader, true) : character!;
    let to = from;
    if (reader.text[reader.at] === "-" && reader.text[reader.at + 1] !== "]") {
      reader.at++;
      const end = reader.text[reader.at++];
      to = end === "\\" ? readEscape(reader, true) : (end ?? from);
    }
    members.push({ from, to });
  }
  reader.at++;
  if (!negated) return members[0]?.from ?? "";
  const excluded = (candidate: string) =>
    members.some(({ from, to }) => candidate >= from && candidate <= to);
  return [..."a0A_- xZ9"].find((candidate) => !excluded(candidate)) ?? "~";
}

/** Moves past the next `character`, or to the end when there is none. */
function skipPast(reader: Reader, character: string): void {
  const found = reader.text.indexOf(character, reader.at);
  reader.at = found < 0 ? reader.text.length : found + 1;
}
