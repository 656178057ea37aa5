/** Names what a parsed body is, for error messages (never its content). */
export function describeBody(body: unknown): string {
  if (body === undefined) return "an empty body";
  if (body === null) return "null";
  if (Array.isArray(body)) return "an array";
  if (typeof body === "object") {
    const keys = Object.keys(body).slice(0, 10);
    return keys.length > 0 ? `an object with fields ${keys.join(", ")}` : "an empty object";
  }
  return `a ${typeof body}`;
}
