import { ConfigurationError } from "../../errors/configuration-error.js";
import { authMethods } from "./check-api-config.js";
import { parseFrontMatter } from "./front-matter.js";
import { describe } from "./layout-reader.js";
import { finding, type SiteFinding, type SitePage } from "./site-finding.js";

/** A page with its front matter read. */
export interface SitePageInfo {
  path: string;
  /** The path as navigation writes it: no leading `./` or `/`, no `.md`/`.mdx`. */
  key: string;
  data: Record<string, unknown>;
  /** 1-based line of each front matter key. */
  keyLines: Record<string, number>;
}

/**
 * Reads each page's front matter. An unreadable block and an unknown
 * `authMethod` are findings; the page is still used with what could be read.
 */
export function readPages(pages: readonly SitePage[]): {
  pages: SitePageInfo[];
  findings: SiteFinding[];
} {
  const findings: SiteFinding[] = [];
  const result: SitePageInfo[] = [];
  for (const page of pages) {
    let data: Record<string, unknown> = {};
    let keyLines: Record<string, number> = {};
    if (typeof page.content === "string") {
      const frontMatter = parseFrontMatter(page.content);
      if (frontMatter.error) {
        findings.push(
          finding(
            "error",
            "page-front-matter-invalid",
            { file: page.path, line: frontMatter.error.line },
            `The front matter of ${page.path} cannot be read (${frontMatter.error.message}), so its title and API metadata are ignored`,
            "Fix the block between the opening and closing --- lines: one `key: value` per line, quoting values that contain `: ` or start with a special character.",
          ),
        );
      }
      data = frontMatter.data;
      keyLines = frontMatter.keyLines;
    } else if (page.frontMatter) {
      data = page.frontMatter;
    }
    const info: SitePageInfo = { path: page.path, key: pageKey(page.path), data, keyLines };
    checkAuthMethod(info, findings);
    result.push(info);
  }
  return { pages: result, findings };
}

/** Checks the call's `pages` input itself (a programming error, not a site finding). */
export function checkPagesInput(pages: unknown): readonly SitePage[] {
  if (pages === undefined) return [];
  if (!Array.isArray(pages)) {
    throw new ConfigurationError(
      `pages must be an array of {path, content}, got ${describe(pages)}`,
    );
  }
  const problems: string[] = [];
  pages.forEach((page: unknown, index) => {
    const item = page as Partial<SitePage> | null;
    if (
      typeof item !== "object" ||
      item === null ||
      typeof item.path !== "string" ||
      item.path === ""
    ) {
      problems.push(`pages[${index}] needs a non-empty string path`);
    } else if (
      typeof item.content !== "string" &&
      (typeof item.frontMatter !== "object" || item.frontMatter === null)
    ) {
      problems.push(
        `pages[${index}] (${item.path}) needs its content (a string) or its parsed frontMatter`,
      );
    }
  });
  if (problems.length > 0) throw new ConfigurationError(problems);
  return pages as SitePage[];
}

/** The key navigation uses for a page path. */
export function pageKey(path: string): string {
  return path
    .trim()
    .replace(/^\.?\/+/, "")
    .replace(/\.(mdx?|markdown)$/i, "");
}

function checkAuthMethod(page: SitePageInfo, findings: SiteFinding[]): void {
  const value = page.data.authMethod;
  if (value === undefined || (typeof value === "string" && authMethods.includes(value))) return;
  findings.push(
    finding(
      "error",
      "config-invalid",
      { file: page.path, key: "authMethod", line: page.keyLines.authMethod },
      `${page.path} has authMethod ${typeof value === "string" ? `"${value}"` : describe(value)}, which the service does not know (allowed: ${authMethods.join(", ")})`,
      'Use authMethod: none for a page whose operation needs no credentials, or "bearer"; or remove the key to use api.auth.method.',
    ),
  );
}
