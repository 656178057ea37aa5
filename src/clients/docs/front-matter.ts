import { loadOnFirstUse } from "../../internal/load-on-first-use.js";

const loadYaml = loadOnFirstUse<typeof import("yaml")>("yaml");

/** What `parseFrontMatter` read from a page. */
export interface FrontMatter {
  /** Whether the page opens with a `---` block. */
  present: boolean;
  /** The block's keys and values (empty when absent or unreadable). */
  data: Record<string, unknown>;
  /** The page after the block. */
  body: string;
  /** The 1-based line in the page of each top-level key. */
  keyLines: Record<string, number>;
  /** Why the block could not be read, with its 1-based line in the page when known. */
  error?: { message: string; line?: number };
}

/**
 * Reads the YAML front matter of a Markdown/MDX page: a block that opens
 * the page with a `---` line and closes with the next `---` (or `...`) line.
 * Never throws; a block that is not YAML key/value pairs sets `error`.
 *
 * @example
 * parseFrontMatter("---\ntitle: Users\nopenapi: GET /users\n---\n# Users").data
 * // { title: "Users", openapi: "GET /users" }
 */
export function parseFrontMatter(content: string): FrontMatter {
  const text = content.startsWith("\uFEFF") ? content.slice(1) : content;
  const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
  if (lines[0]?.trimEnd() !== "---") {
    return { present: false, data: {}, body: content, keyLines: {} };
  }
  const closing = lines.findIndex((line, index) => index > 0 && /^(---|\.\.\.)\s*$/.test(line));
  if (closing < 0) {
    return {
      present: true,
      data: {},
      body: content,
      keyLines: {},
      error: { message: "the front matter opens with --- but has no closing --- line", line: 1 },
    };
  }
  const rawLines = text.split("\n");
  const body = rawLines.slice(closing + 1).join("\n");
  const lineCounter = new (loadYaml().LineCounter)();
  const document = loadYaml().parseDocument(lines.slice(1, closing).join("\n"), { lineCounter });
  const firstError = document.errors[0];
  if (firstError) {
    const position = firstError.linePos?.[0];
    return {
      present: true,
      data: {},
      body,
      keyLines: {},
      error: {
        message: firstError.message.split("\n")[0] ?? firstError.message,
        ...(position ? { line: position.line + 1 } : {}),
      },
    };
  }
  if (document.contents === null) return { present: true, data: {}, body, keyLines: {} };
  if (!loadYaml().isMap(document.contents)) {
    return {
      present: true,
      data: {},
      body,
      keyLines: {},
      error: { message: "the front matter must be `key: value` lines", line: 2 },
    };
  }
  const keyLines: Record<string, number> = {};
  for (const pair of document.contents.items) {
    if (loadYaml().isScalar(pair.key) && pair.key.range) {
      keyLines[String(pair.key.value)] = lineCounter.linePos(pair.key.range[0]).line + 1;
    }
  }
  return {
    present: true,
    data: document.toJS() as Record<string, unknown>,
    body,
    keyLines,
  };
}
