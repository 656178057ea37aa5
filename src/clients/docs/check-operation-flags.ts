import type { SiteCoverage } from "./site-coverage.js";
import { finding, type SiteFinding } from "./site-finding.js";
import type { ResolvedReference } from "./site-references.js";
import { formatKey } from "./source-lines.js";

/**
 * The fourth cause: the operation's flags. `x-excluded` means no page is
 * generated; `x-hidden` keeps the page reachable by link only, out of the
 * sidebar. The service lists both among the faults that leave a page blank
 * or missing, so each navigation entry or page naming a flagged operation
 * is an error, at the reference (an unreferenced flagged operation is taken
 * as deliberate).
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
      const flag = operation.excluded
        ? { name: "x-excluded", keyPath: operation.excludedKeyPath }
        : operation.hidden
          ? { name: "x-hidden", keyPath: operation.hiddenKeyPath }
          : undefined;
      if (flag?.keyPath === undefined) continue;
      const at = `${spec.path}${lineSuffix(spec.locate(flag.keyPath))}`;
      const effect =
        flag.name === "x-excluded"
          ? "so no page is generated"
          : "so its page is kept out of the sidebar (reachable by link only)";
      for (const reference of references) {
        findings.push(
          finding(
            "error",
            flag.name === "x-excluded" ? "operation-excluded" : "operation-hidden",
            reference.where,
            `${operation.key} is marked ${flag.name}: true in ${at}, ${effect}, yet ${describeReference(reference)} names it`,
            `Remove ${flag.name} from ${formatKey(flag.keyPath)} in ${spec.path} to publish the operation, or ${
              reference.page
                ? `remove the ${reference.field} metadata from ${reference.page.path}`
                : `remove "${reference.text}" from the group's pages`
            }.`,
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
