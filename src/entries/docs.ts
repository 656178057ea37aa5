/**
 * `switchyard-agents/docs`: the documentation hosting service's records, routes,
 * edits and site check, beside `DocsClient` from the main entry.
 *
 * @module switchyard-agents/docs
 */
export type { CheckSiteOptions } from "../clients/docs/check-site.js";
export { checkSiteConfig } from "../clients/docs/check-site-config.js";
export {
  type DocsRoute,
  type DocsRouteName,
  type DocsRouteOverrides,
  type DocsRoutes,
  docsRoutes,
} from "../clients/docs/docs-routes.js";
export type {
  DocsFile,
  DocsManifest,
  DocsManifestEntry,
  DocsPulledFile,
  DocsPullResult,
  DocsPushedFile,
  DocsPushResult,
  DocsUser,
  Documentation,
} from "../clients/docs/docs-types.js";
export type { EditFileResult } from "../clients/docs/edit-file.js";
export type { ContentEdit, FileEdit, FindReplaceEdit } from "../clients/docs/file-edit.js";
export { type FrontMatter, parseFrontMatter } from "../clients/docs/front-matter.js";
export type {
  SiteCheckInput,
  SiteCheckResult,
  SiteFinding,
  SiteFindingCode,
  SiteFindingLocation,
  SiteFindingSeverity,
  SitePage,
} from "../clients/docs/site-finding.js";
