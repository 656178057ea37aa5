import { ConfigurationError } from "../../errors/configuration-error.js";
import { checkApiConfig } from "./check-api-config.js";
import { checkDuplicatePages } from "./check-duplicate-pages.js";
import { checkNavigationCoverage } from "./check-navigation-coverage.js";
import { checkNavigationPages } from "./check-navigation-pages.js";
import { checkOperationFlags } from "./check-operation-flags.js";
import { checkPlaygroundProxy } from "./check-playground-proxy.js";
import { describe, isObject, LayoutReader } from "./layout-reader.js";
import { SiteCoverage } from "./site-coverage.js";
import {
  finding,
  type SiteCheckInput,
  type SiteCheckResult,
  type SiteFinding,
} from "./site-finding.js";
import { readNavigation } from "./site-navigation.js";
import { checkPagesInput, readPages } from "./site-pages.js";
import { resolveReferences } from "./site-references.js";
import { createLineLocator } from "./source-lines.js";
import { SpecCatalog, type SpecReference } from "./spec-catalog.js";

/**
 * Checks a documentation site's `layout.json`, its OpenAPI files and its
 * pages for the five causes of a blank or missing API page (docs/contract.md §3): a
 * spec invalid or absent; page metadata or a navigation entry that does not
 * match an operation exactly; a navigation filter leaving an operation out;
 * an `x-hidden` / `x-excluded` operation that is referenced; an operation
 * with both a generated and a hand-written page. It also checks the layout
 * keys the seed documents and warns when the playground proxy is off.
 * Pure: reads nothing, sends nothing.
 *
 * @example
 * const { ok, findings } = checkSiteConfig({
 *   layout: layoutJsonText,
 *   openapi: { "openapi.yaml": openapiYamlText },
 *   pages: [{ path: "api/list-pets.mdx", content: pageText }],
 * });
 */
export function checkSiteConfig(input: SiteCheckInput): SiteCheckResult {
  if (!isObject(input)) {
    throw new ConfigurationError("checkSiteConfig takes { layout, openapi?, pages?, files? }");
  }
  if (input.openapi !== undefined && !isObject(input.openapi)) {
    throw new ConfigurationError(
      `openapi must map file paths to their text or parsed object, got ${describe(input.openapi)}`,
    );
  }
  const layoutPath = input.layoutPath ?? "layout.json";
  const pageList = checkPagesInput(input.pages);
  const files = input.files ?? [];
  const pages = readPages(pageList);

  const layout = readLayout(input.layout, layoutPath);
  if (!layout.value) return result([layout.finding!, ...pages.findings]);

  const reader = new LayoutReader(
    layout.value,
    layoutPath,
    createLineLocator(typeof input.layout === "string" ? input.layout : undefined),
  );
  checkApiConfig(reader);
  const groups = readNavigation(reader);
  const apiSpecs = readApiSpecs(reader.get(["api", "openapi"]));
  const referenced: SpecReference[] = apiSpecs.map((path, index) => ({
    path,
    where: reader.where(
      Array.isArray(reader.get(["api", "openapi"]))
        ? ["api", "openapi", index]
        : ["api", "openapi"],
    ),
  }));
  for (const group of groups) {
    if (group.ownsOpenapi && group.openapi !== undefined) {
      referenced.push({ path: group.openapi, where: reader.where([...group.keyPath, "openapi"]) });
    }
  }
  const catalog = new SpecCatalog(input.openapi ?? {}, referenced, files);
  const baseUrl = reader.get(["api", "baseUrl"]);
  const references = resolveReferences({
    reader,
    catalog,
    groups,
    pages: pages.pages,
    defaultSpec: apiSpecs[0],
    baseUrl: typeof baseUrl === "string" ? baseUrl : undefined,
  });
  const coverage = new SiteCoverage(catalog, groups, references.navigation, references.pages);
  return result([
    ...reader.findings,
    ...catalog.findings,
    ...pages.findings,
    ...references.findings,
    ...checkNavigationCoverage(reader, coverage, apiSpecs),
    ...checkOperationFlags(coverage),
    ...checkDuplicatePages(coverage),
    ...checkNavigationPages(reader, groups, [...pageList.map((page) => page.path), ...files]),
    ...checkPlaygroundProxy(reader, catalog.specs),
  ]);
}

function result(findings: SiteFinding[]): SiteCheckResult {
  return { ok: !findings.some((item) => item.severity === "error"), findings };
}

function readLayout(
  layout: unknown,
  file: string,
): { value?: Record<string, unknown>; finding?: SiteFinding } {
  let value = layout;
  if (typeof layout === "string") {
    try {
      value = JSON.parse(layout);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const line = jsonErrorLine(message, layout);
      return {
        finding: finding(
          "error",
          "layout-unparsable",
          { file, line },
          `${file} is not valid JSON (${message}), so the site cannot be built from it`,
          `Fix the JSON syntax${line ? ` near line ${line}` : ""}: trailing commas, comments and single quotes are not allowed.`,
        ),
      };
    }
  }
  if (isObject(value)) return { value };
  return {
    finding: finding(
      "error",
      "layout-unparsable",
      { file },
      `${file} is ${describe(value)}, expected a JSON object`,
      'Write layout.json as an object such as {"api": {"openapi": "openapi.yaml"}, "navigation": {...}}.',
    ),
  };
}

function readApiSpecs(value: unknown): string[] {
  if (typeof value === "string" && value.trim() !== "") return [value];
  if (Array.isArray(value))
    return value.filter((item): item is string => typeof item === "string" && item.trim() !== "");
  return [];
}

/** The line of a JSON.parse error, from "line N" or "position N" in its message. */
function jsonErrorLine(message: string, text: string): number | undefined {
  const line = /line (\d+)/.exec(message);
  if (line) return Number(line[1]);
  const position = /position (\d+)/.exec(message);
  if (!position) return undefined;
  return text.slice(0, Number(position[1])).split("\n").length;
}
