/** The part of a zod issue (zod 3 or 4) the formatter reads. */
export interface SchemaIssue {
  path: readonly PropertyKey[];
  message: string;
}

/**
 * Turns a validation path into the form a model reads back easily:
 * `items[0].name`, or `(root)` for the arguments object itself.
 */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text === "" ? String(key) : `.${String(key)}`;
  }
  return text === "" ? "(root)" : text;
}

/** One `path: message` line per issue, e.g. `limit: Too big: expected number to be <=100`. */
export function formatIssues(issues: readonly SchemaIssue[]): string[] {
  return issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`);
}
