import type { LayoutReader } from "./layout-reader.js";
import type { SiteCoverage } from "./site-coverage.js";
import { finding, type SiteFinding } from "./site-finding.js";
import { formatKey } from "./source-lines.js";

/**
 * The third cause of a missing page: navigation that lists a spec's
 * operations one by one (as `METHOD /path` or as pages with API metadata)
 * and leaves some out. Rule: when no group generates the whole spec, every
 * operation that is neither `x-hidden` nor `x-excluded` must be listed in a
 * group or named by some page's metadata; each one that is not is an
 * error. A spec from `api.openapi` that navigation never shows is a warning.
 */
export function checkNavigationCoverage(
  reader: LayoutReader,
  coverage: SiteCoverage,
  apiSpecs: readonly string[],
): SiteFinding[] {
  const findings: SiteFinding[] = [];
  for (const spec of coverage.catalog.specs) {
    if (coverage.generatingGroups.has(spec)) continue;
    const shown = coverage.shownIn(spec);
    const published = spec.operations.filter((operation) => !operation.excluded);
    if (shown.length === 0) {
      const index = apiSpecs.findIndex((name) => coverage.catalog.is(name, spec));
      if (index < 0 || published.length === 0) continue;
      const key = Array.isArray(reader.get(["api", "openapi"]))
        ? ["api", "openapi", index]
        : ["api", "openapi"];
      findings.push(
        finding(
          "warning",
          "spec-not-in-navigation",
          reader.where(key),
          `No navigation group shows an operation of ${spec.path}, so its ${published.length} operations have no page in the sidebar`,
          `Add a group with "openapi": "${spec.path}" to generate every operation, or list operations such as "${published[0]!.key}" in a group's pages.`,
        ),
      );
      continue;
    }
    const groups = [...new Set(shown.flatMap((entry) => entry.groups))];
    const target = groups[0]!;
    const labels = groups.map((group) => `"${group.label}"`).join(", ");
    for (const operation of published) {
      if (operation.hidden) continue;
      if (coverage.navigationReferences(operation).length > 0) continue;
      if (coverage.pageReferences(operation).length > 0) continue;
      findings.push(
        finding(
          "error",
          "operation-not-in-navigation",
          { ...reader.where([...target.keyPath, "pages"]), operation: operation.key },
          `${operation.key} of ${spec.path} has no page: navigation ${groups.length > 1 ? "groups" : "group"} ${labels} ${groups.length > 1 ? "list" : "lists"} the spec's operations one by one and ${groups.length > 1 ? "leave" : "leaves"} it out`,
          `Add "${operation.key}" to the pages of group "${target.label}" (${formatKey(target.keyPath)}.pages) in ${reader.file}; if leaving it out is deliberate, mark the operation x-excluded: true in ${spec.path}.`,
        ),
      );
    }
  }
  return findings;
}
