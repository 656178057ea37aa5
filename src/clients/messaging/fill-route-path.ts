import { ConfigurationError } from "../../errors/configuration-error.js";

/**
 * Fills the `{name}` placeholders of a route path with URL-encoded ids. An id
 * that is empty, not a string, or `.`/`..` (which URL resolution would turn
 * into a different path) is rejected before anything is sent.
 */
export function fillRoutePath(path: string, parameters: Record<string, unknown>): string {
  const problems: string[] = [];
  const filled = path.replace(/\{([a-z_]+)\}/g, (placeholder, name: string) => {
    const value = parameters[name];
    const problem = describeBadId(value, name);
    if (problem) {
      problems.push(problem);
      return placeholder;
    }
    return encodeURIComponent(value as string);
  });
  if (problems.length > 0) throw new ConfigurationError(problems);
  return filled;
}

function describeBadId(value: unknown, name: string): string | undefined {
  if (typeof value !== "string") {
    return `${name} must be a string id, got ${value === null ? "null" : typeof value}`;
  }
  if (value.trim() === "") return `${name} must not be empty: pass the id the service returned`;
  if (value === "." || value === "..") {
    return `${name} "${value}" is not a valid id: pass the id the service returned`;
  }
  return undefined;
}
