import type { SiteCoverage } from "./site-coverage.js";
import { finding, type SiteFinding } from "./site-finding.js";
import type { ResolvedReference } from "./site-references.js";
import { formatKey } from "./source-lines.js";

/**
 * The fourth cause: the operation's flags. `x-excluded` means no page is
 * generated, so each navigation entry or page naming the operation is an
 * error. `x-hidden` keeps the page reachable by link but out of the
 * sidebar: a warning when navigation or a page names the operation (an
 * unreferenced hidden operation is taken as deliberate).
 */
export function checkOperationFlags(coverage: SiteCoverage): SiteFinding[] {
  const findings: SiteFinding[] = [];
  for (const spec of coverage.catalog.specs) {
    for (const operation of spec.operations) {
      const references = [
        ...coverage.navigationReferences(operation),
        ...coverage.pageReferences(operation),
      ];
      if (references.length === 0) continue;
      if (operation.excluded && operation.excludedKeyPath) {
        const flag = `${spec.path}${lineSuffix(spec.locate(operation.excludedKeyPath))}`;
        for (const reference of references) {
          findings.push(
            finding(
              "error",
              "operation-excluded",
              reference.where,
              `${operation.key} is marked x-excluded: true in ${flag}, so no page is generated, yet ${describeReference(reference)} names it`,
              `Remove x-excluded from ${formatKey(operation.excludedKeyPath)} in ${spec.path} to publish the operation, or ${
                reference.page
                  ? `remove the ${reference.field} metadata from ${reference.page.path}`
                  : `remove "${reference.text}" from the group's pages`
              }.`,
            ),
          );
        }
      } else if (operation.hidden && operation.hiddenKeyPath) {
        findings.push(
          finding(
            "warning",
            "operation-hidden",
            {
              file: spec.path,
              key: formatKey(operation.hiddenKeyPath),
              line: spec.locate(operation.hiddenKeyPath),
              operation: operation.key,
            },
            `${operation.key} is marked x-hidden: true, so its page is reachable by link but not in the sidebar, although ${references.map(describeReference).join(" and ")} ${references.length > 1 ? "name" : "names"} it`,
            `Remove x-hidden from ${formatKey(operation.hiddenKeyPath)} in ${spec.path} if the operation belongs in the sidebar; otherwise link to its page from a guide.`,
          ),
        );
      }
    }
  }
  return findings;
}

/** `navigation group "API" (layout.json)` or `the page pets/get.mdx`. */
export function describeReference(reference: ResolvedReference): string {
  if (reference.page)
    return `the page ${reference.page.path} (${reference.field}: ${reference.text})`;
  return `navigation group "${reference.group?.label ?? "?"}" (${reference.where.file})`;
}

function lineSuffix(line: number | undefined): string {
  return line === undefined ? "" : ` line ${line}`;
}
