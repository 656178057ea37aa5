/** The message of whatever was thrown, with its class name when that says something. */
export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) {
    return thrown.name && thrown.name !== "Error"
      ? `${thrown.name}: ${thrown.message}`
      : thrown.message;
  }
  if (typeof thrown === "string") return thrown;
  try {
    return JSON.stringify(thrown) ?? String(thrown);
  } catch {
    return String(thrown);
  }
}
