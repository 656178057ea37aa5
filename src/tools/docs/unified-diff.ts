/** Lines of context around each change, as `diff -u` gives. */
const contextLines = 3;
/** How long the diff may search before the page is shown whole instead. */
const diffTimeoutMs = 2_000;

/**
 * The unified diff (`@@ -1,3 +1,3 @@` hunks, no file headers) that turns
 * `before` into `after`, or `undefined` when the two are too different to
 * compare within two seconds. `""` when they are equal. The diff library is
 * loaded on first use, so importing the package does not pay for it.
 */
export async function unifiedDiff(before: string, after: string): Promise<string | undefined> {
  if (before === after) return "";
  const { structuredPatch } = await import("diff");
  const patch = structuredPatch("live", "pushed", before, after, undefined, undefined, {
    context: contextLines,
    timeout: diffTimeoutMs,
  });
  if (!patch) return undefined;
  return patch.hunks
    .map((hunk) =>
      [
        `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
        ...hunk.lines,
      ].join("\n"),
    )
    .join("\n");
}
