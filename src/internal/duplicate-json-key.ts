/**
 * The first key that one object of a JSON text names twice, or `undefined`.
 * `JSON.parse` keeps the last of two and says nothing, so a person who wrote
 * both would see one value run and the other silently dropped. Keys compare
 * as decoded (`"a"` and `"\u0061"` are one key). Expects text `JSON.parse`
 * accepted.
 */
export function duplicateJsonKey(text: string): string | undefined {
  // One entry per open object (its keys so far) or array (null).
  const open: Array<Set<string> | null> = [];
  let expectingKey = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === '"') {
      let end = index + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const keys = open.at(-1);
      if (expectingKey && keys) {
        const key = JSON.parse(text.slice(index, end + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
      expectingKey = false;
      index = end;
    } else if (character === "{") {
      open.push(new Set());
      expectingKey = true;
    } else if (character === "[") {
      open.push(null);
    } else if (character === "}" || character === "]") {
      open.pop();
    } else if (character === ",") {
      expectingKey = open.at(-1) instanceof Set;
    }
  }
  return undefined;
}
