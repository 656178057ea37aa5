/** How bad a finding is: an `error` blanks or drops a page or breaks the config; a `warning` may surprise. */
export type SiteFindingSeverity = "error" | "warning";

/**
 * What a finding is about. The five causes of a blank or missing page
 * (`docs/contract.md`, documentation hosting) are: 1 `spec-*`; 2 `page-operation-*` and `navigation-operation-not-found`;
 * 3 `operation-not-in-navigation` and `spec-not-in-navigation`; 4
 * `operation-hidden` and `operation-excluded`; 5 `operation-duplicate-page`.
 */
export type SiteFindingCode =
  | "layout-missing"
  | "layout-unparsable"
  | "config-invalid"
  | "config-unusual-value"
  | "playground-proxy-disabled"
  | "navigation-invalid"
  | "navigation-page-not-found"
  | "spec-missing"
  | "spec-unparsable"
  | "spec-not-openapi-3"
  | "spec-no-paths"
  | "spec-not-checked"
  | "spec-ref-broken"
  | "page-front-matter-invalid"
  | "page-operation-malformed"
  | "page-operation-not-found"
  | "page-api-not-in-spec"
  | "navigation-operation-not-found"
  | "operation-not-in-navigation"
  | "spec-not-in-navigation"
  | "operation-hidden"
  | "operation-excluded"
  | "operation-duplicate-page";

/** Where a finding points: a file, and when known a key, a 1-based line, an operation. */
export interface SiteFindingLocation {
  file: string;
  /** Dotted key inside the file, e.g. `api.playground.display` or `paths./pets.get.x-hidden`. */
  key?: string;
  line?: number;
  /** The operation concerned, as `METHOD /path`. */
  operation?: string;
}

/** One problem found by `checkSiteConfig`, with how to fix it. */
export interface SiteFinding {
  severity: SiteFindingSeverity;
  code: SiteFindingCode;
  message: string;
  where: SiteFindingLocation;
  fix: string;
}

/** The outcome of a site check: `ok` when no finding is an error. */
export interface SiteCheckResult {
  ok: boolean;
  findings: SiteFinding[];
}

/** A page of the site: its raw content, or its already-parsed front matter. */
export interface SitePage {
  /** Repository path, e.g. `api-reference/create-pet.mdx`. */
  path: string;
  /** The page text, front matter included. */
  content?: string;
  /** Parsed front matter, when `content` is not given. */
  frontMatter?: Record<string, unknown>;
}

/** What `checkSiteConfig` checks. */
export interface SiteCheckInput {
  /** `layout.json`: its text or the parsed object. */
  layout: unknown;
  /** The file name findings use for the layout. @default "layout.json" */
  layoutPath?: string;
  /** OpenAPI files by repository path: their text (JSON or YAML) or the parsed object. */
  openapi?: Record<string, unknown>;
  /** The site's Markdown/MDX pages. Navigation entries are checked against them when given. */
  pages?: readonly SitePage[];
  /** Every file path in the repository, to find navigation pages and suggest missing spec paths. */
  files?: readonly string[];
}

/** A location while it is being built: keys may be undefined (they are dropped). */
export interface LocationDraft {
  file: string;
  key?: string | undefined;
  line?: number | undefined;
  operation?: string | undefined;
}

/** Builds a finding; `where` keys left undefined are dropped. */
export function finding(
  severity: SiteFindingSeverity,
  code: SiteFindingCode,
  where: LocationDraft,
  message: string,
  fix: string,
): SiteFinding {
  const location: SiteFindingLocation = { file: where.file };
  if (where.key !== undefined) location.key = where.key;
  if (where.line !== undefined) location.line = where.line;
  if (where.operation !== undefined) location.operation = where.operation;
  return { severity, code, message, where: location, fix };
}
