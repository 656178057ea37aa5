import type { LineCounter, Node } from "yaml";
import { loadOnFirstUse } from "../../internal/load-on-first-use.js";

const loadYaml = loadOnFirstUse<typeof import("yaml")>("yaml");

/** A key path inside a JSON or YAML document, e.g. `["paths", "/pets", "get"]`. */
export type KeyPath = readonly (string | number)[];

/** Finds the 1-based line of a key in a document, when the text is known and readable. */
export type LineLocator = (path: KeyPath) => number | undefined;

/** A locator over `text` (JSON or YAML); parsed once, on first use. */
export function createLineLocator(text: string | undefined): LineLocator {
  if (text === undefined) return () => undefined;
  let parsed: { contents: unknown; lineCounter: LineCounter } | undefined | null;
  return (path) => {
    if (parsed === undefined) {
      const lineCounter = new (loadYaml().LineCounter)();
      const document = loadYaml().parseDocument(text, { lineCounter });
      parsed = document.errors.length > 0 ? null : { contents: document.contents, lineCounter };
    }
    if (parsed === null) return undefined;
    const offset = findOffset(parsed.contents, path);
    return offset === undefined ? undefined : parsed.lineCounter.linePos(offset).line;
  };
}

/** `a.b[0].c` for `["a", "b", 0, "c"]`. */
export function formatKey(path: KeyPath): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? segment : `.${segment}`;
  }
  return text;
}

function findOffset(root: unknown, path: KeyPath): number | undefined {
  let node = root;
  let offset: number | undefined;
  for (const segment of path) {
    if (loadYaml().isMap(node)) {
      const pair = node.items.find(
        (item) => loadYaml().isScalar(item.key) && String(item.key.value) === String(segment),
      );
      if (!pair) return undefined;
      offset = (pair.key as Node).range?.[0];
      node = pair.value;
    } else if (loadYaml().isSeq(node) && typeof segment === "number") {
      const item = node.items[segment];
      if (item === undefined) return undefined;
      offset = (item as Node).range?.[0];
      node = item;
    } else {
      return undefined;
    }
  }
  return offset;
}
