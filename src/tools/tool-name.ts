/** What a tool name may be: letters, digits, `_` and `-`, 1 to 64 characters. */
export const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Describes what is wrong with a tool name, or returns `undefined` when the
 * name is valid. Reasoning services reject other names, so this is checked
 * where tools are defined rather than when a request fails.
 */
export function findToolNameProblem(name: unknown): string | undefined {
  if (typeof name !== "string") {
    return `A tool name must be a string; got ${name === null ? "null" : typeof name}.`;
  }
  if (!toolNamePattern.test(name)) {
    return `Tool name "${name}" is invalid: use 1 to 64 letters, digits, "_" or "-" (e.g. "list_orders").`;
  }
  return undefined;
}
