import type { RequestOptions } from "../request-options.js";
import { checkSiteConfig } from "./check-site-config.js";
import type { DocsFileAccess } from "./docs-file-access.js";
import { finding, type SiteCheckResult, type SitePage } from "./site-finding.js";

/** Options of `DocsClient.checkSite`. */
export interface CheckSiteOptions {
  /** Path of the site configuration in the project. @default "layout.json" */
  layoutPath?: string;
}

const pullBatchSize = 50;

/**
 * Reads a project's site from the service (manifest, `layout.json`, the
 * OpenAPI files it names, every `.md`/`.mdx` page) and runs
 * `checkSiteConfig` on it. Paths in findings are relative to the folder of
 * `layout.json`, as the layout writes them. Remote spec URLs are not fetched.
 */
export async function checkDocsSite(
  access: DocsFileAccess,
  documentationId: string,
  siteOptions: CheckSiteOptions = {},
  options?: RequestOptions,
): Promise<SiteCheckResult> {
  const manifest = await access.getManifest(documentationId, options);
  const paths = manifest.files.map((file) => file.path);
  const wanted = siteOptions.layoutPath ?? "layout.json";
  const layoutPath = locateLayout(paths, wanted, siteOptions.layoutPath === undefined);
  if (layoutPath === undefined) {
    return {
      ok: false,
      findings: [
        finding(
          "error",
          "layout-missing",
          { file: wanted },
          `Documentation ${documentationId} has no ${wanted}, so the site has no configuration to build from`,
          `Add ${wanted} at the root of the project, or pass layoutPath with its path (the manifest has ${paths.length} files).`,
        ),
      ],
    };
  }
  const root = layoutPath.includes("/") ? layoutPath.slice(0, layoutPath.lastIndexOf("/") + 1) : "";
  const relative = paths
    .filter((path) => path.startsWith(root) && path !== layoutPath)
    .map((path) => ({ path, relative: path.slice(root.length) }));

  const [layoutFile] = (await access.pullFiles(documentationId, [layoutPath], options)).files;
  const layoutText = layoutFile?.content ?? "";
  const specNames = new Set(specPathsOf(layoutText).map(normalize));
  const specFiles = relative.filter((file) => specNames.has(normalize(file.relative)));
  const pageFiles = relative.filter((file) => /\.mdx?$/i.test(file.path));

  const contents = new Map<string, string>();
  const toPull = [...new Set([...specFiles, ...pageFiles].map((file) => file.path))];
  for (let start = 0; start < toPull.length; start += pullBatchSize) {
    const batch = toPull.slice(start, start + pullBatchSize);
    const pulled = await access.pullFiles(documentationId, batch, options);
    for (const file of pulled.files) contents.set(file.path, file.content);
  }

  const openapi: Record<string, unknown> = {};
  for (const file of specFiles) {
    const content = contents.get(file.path);
    if (content !== undefined) openapi[file.relative] = content;
  }
  const pages: SitePage[] = [];
  for (const file of pageFiles) {
    const content = contents.get(file.path);
    if (content !== undefined) pages.push({ path: file.relative, content });
  }
  return checkSiteConfig({
    layout: layoutText,
    layoutPath: layoutPath.slice(root.length),
    openapi,
    pages,
    files: relative.map((file) => file.relative),
  });
}

function locateLayout(
  paths: readonly string[],
  wanted: string,
  guess: boolean,
): string | undefined {
  const normalized = normalize(wanted);
  const exact = paths.find((path) => normalize(path) === normalized);
  if (exact !== undefined || !guess) return exact;
  const nested = paths.filter((path) => path.endsWith("/layout.json"));
  return nested.length === 1 ? nested[0] : undefined;
}

/** The spec paths a layout names (`api.openapi` and any group's `openapi`); none if unreadable. */
function specPathsOf(layoutText: string): string[] {
  let layout: unknown;
  try {
    layout = JSON.parse(layoutText);
  } catch {
    return [];
  }
  const found: string[] = [];
  const api = (layout as { api?: { openapi?: unknown } } | null)?.api?.openapi;
  for (const value of Array.isArray(api) ? api : [api]) {
    if (typeof value === "string") found.push(value);
  }
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (key === "openapi" && typeof inner === "string") found.push(inner);
        else visit(inner);
      }
    }
  };
  visit((layout as { navigation?: unknown } | null)?.navigation);
  return found;
}

function normalize(path: string): string {
  return path.trim().replace(/^\.?\/+/, "");
}
