import type { LoadedSpec, SpecOperation } from "./openapi-spec.js";
import type { NavigationGroup } from "./site-navigation.js";
import { pageKey, type SitePageInfo } from "./site-pages.js";
import type { ResolvedReference } from "./site-references.js";
import type { SpecCatalog } from "./spec-catalog.js";

/**
 * Which operations get a page and from where. A group whose own `openapi`
 * names a spec and whose `pages` name no operation (neither `METHOD /path`
 * nor a page with API metadata) generates a page for every operation of
 * that spec; otherwise only the operations listed get one.
 */
export class SiteCoverage {
  /** The group that generates every page of a spec, per spec. */
  readonly generatingGroups = new Map<LoadedSpec, NavigationGroup>();

  constructor(
    readonly catalog: SpecCatalog,
    readonly groups: readonly NavigationGroup[],
    readonly navigation: readonly ResolvedReference[],
    readonly pages: readonly ResolvedReference[],
  ) {
    for (const group of groups) {
      if (!group.ownsOpenapi || group.openapi === undefined) continue;
      const lookup = catalog.lookup(group.openapi);
      if (lookup.status !== "loaded" || this.generatingGroups.has(lookup.spec)) continue;
      const listsOperations =
        group.entries.some((entry) => entry.reference) ||
        pages.some(
          (reference) => reference.page && this.groupsListing(reference.page).includes(group),
        );
      if (!listsOperations) this.generatingGroups.set(lookup.spec, group);
    }
  }

  /** The groups whose `pages` list this page. */
  groupsListing(page: SitePageInfo): NavigationGroup[] {
    return this.groups.filter((group) =>
      group.entries.some((entry) => !entry.reference && pageKey(entry.text) === page.key),
    );
  }

  /** Navigation references to the operation (`METHOD /path` entries). */
  navigationReferences(operation: SpecOperation): ResolvedReference[] {
    return this.navigation.filter((reference) => reference.operation === operation);
  }

  /** Page metadata references to the operation. */
  pageReferences(operation: SpecOperation): ResolvedReference[] {
    return this.pages.filter((reference) => reference.operation === operation);
  }

  /** The references that put an operation of `spec` in the sidebar, with their groups. */
  shownIn(spec: LoadedSpec): { reference: ResolvedReference; groups: NavigationGroup[] }[] {
    const shown: { reference: ResolvedReference; groups: NavigationGroup[] }[] = [];
    for (const reference of this.navigation) {
      if (reference.operation.spec === spec.path && reference.group) {
        shown.push({ reference, groups: [reference.group] });
      }
    }
    for (const reference of this.pages) {
      if (reference.operation.spec !== spec.path || !reference.page) continue;
      const groups = this.groupsListing(reference.page);
      if (groups.length > 0) shown.push({ reference, groups });
    }
    return shown;
  }
}
