/**
 * `switchyard-agents/docs`: the documentation hosting service's records, routes,
 * edits and site check, beside `DocsClient` from the main entry.
 *
 * @module switchyard-agents/docs
 */
export type { CheckSiteOptions } from "../clients/docs/check-site.js";
export { checkSiteConfig } from "../clients/docs/check-site-config.js";
export { docsRoutes } from "../clients/docs/docs-routes.js";
export type {
  DocsFile,
  DocsManifest,
  DocsPullResult,
  DocsPushResult,
  DocsUser,
  Documentation,
} from "../clients/docs/docs-types.js";
export type { EditFileResult } from "../clients/docs/edit-file.js";
export type { FileEdit } from "../clients/docs/file-edit.js";
export { parseFrontMatter } from "../clients/docs/front-matter.js";
export type {
  SiteCheckInput,
  SiteCheckResult,
  SiteFinding,
  SiteFindingCode,
} from "../clients/docs/site-finding.js";
