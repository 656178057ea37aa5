import { closestPaths } from "./closest-paths.js";
import type { LayoutReader } from "./layout-reader.js";
import { finding, type SiteFinding } from "./site-finding.js";
import type { NavigationGroup } from "./site-navigation.js";
import { pageKey } from "./site-pages.js";

/**
 * Navigation entries naming a page that is not among the site's files (a
 * missing page). Run only when the caller gave the pages or the file list,
 * since otherwise nothing can be compared.
 */
export function checkNavigationPages(
  reader: LayoutReader,
  groups: readonly NavigationGroup[],
  paths: readonly string[],
): SiteFinding[] {
  if (paths.length === 0) return [];
  const keys = new Set(paths.map(pageKey));
  const pagePaths = paths.filter((path) => /\.(mdx?|markdown)$/i.test(path));
  const findings: SiteFinding[] = [];
  for (const group of groups) {
    for (const entry of group.entries) {
      if (entry.reference || keys.has(pageKey(entry.text))) continue;
      const close = closestPaths(entry.text, pagePaths).map(pageKey);
      findings.push(
        finding(
          "warning",
          "navigation-page-not-found",
          reader.where(entry.keyPath),
          `Navigation group "${group.label}" lists the page "${entry.text}", but there is no ${entry.text}.md or .mdx, so the sidebar entry leads nowhere`,
          close.length > 0
            ? `Did you mean ${close.map((key) => `"${key}"`).join(", ")}? Otherwise add the page ${entry.text}.mdx.`
            : `Add the page ${entry.text}.mdx, or remove the entry.`,
        ),
      );
    }
  }
  return findings;
}
