import type { LayoutReader } from "./layout-reader.js";
import type { LoadedSpec, SpecOperation } from "./openapi-spec.js";
import {
  candidatePaths,
  isOnAnotherHost,
  type OperationReference,
  parseOperationReference,
} from "./operation-reference.js";
import { finding, type LocationDraft, type SiteFinding } from "./site-finding.js";
import type { NavigationGroup } from "./site-navigation.js";
import { pageKey, type SitePageInfo } from "./site-pages.js";
import type { SpecCatalog } from "./spec-catalog.js";
import { suggestOperation } from "./suggest-operation.js";

/** A navigation entry or page metadata that names an operation the spec has. */
export interface ResolvedReference {
  operation: SpecOperation;
  /** `METHOD /path` as written. */
  text: string;
  where: LocationDraft;
  /** The group listing the operation (navigation references). */
  group?: NavigationGroup;
  /** The hand-written page naming it (page references), and the key used. */
  page?: SitePageInfo;
  field?: "openapi" | "api";
}

/** The layout-level facts reference resolution needs. */
export interface ReferenceContext {
  reader: LayoutReader;
  catalog: SpecCatalog;
  groups: readonly NavigationGroup[];
  pages: readonly SitePageInfo[];
  /** `api.openapi` (its first entry), used when nothing names a spec. */
  defaultSpec: string | undefined;
  /** `api.baseUrl`, to read full URLs in page metadata. */
  baseUrl: string | undefined;
}

/**
 * Resolves every `METHOD /path` in navigation and page metadata to an
 * operation of its spec. Finds the second cause of a blank page (no exact
 * match, with the closest operation suggested) and references to a spec
 * that does not exist.
 */
export function resolveReferences(context: ReferenceContext): {
  navigation: ResolvedReference[];
  pages: ResolvedReference[];
  findings: SiteFinding[];
} {
  const findings: SiteFinding[] = [];
  const navigation: ResolvedReference[] = [];
  const pages: ResolvedReference[] = [];

  for (const group of context.groups) {
    for (const entry of group.entries) {
      if (!entry.reference) continue;
      const where = { ...context.reader.where(entry.keyPath), operation: entry.text };
      const spec = specFor(context, entry.reference, group.openapi, where, findings);
      if (!spec) continue;
      const operation = match(context, spec, entry.reference);
      if (operation) {
        navigation.push({ operation, text: entry.text, where, group });
        continue;
      }
      if (isUnresolved(context, spec, entry.reference)) continue;
      findings.push(
        notFound(
          context,
          spec,
          entry.reference,
          where,
          "navigation-operation-not-found",
          (found) =>
            `Navigation group "${group.label}" lists "${entry.text}", but ${spec.path} has ${found}, so the entry shows no page`,
        ),
      );
    }
  }

  for (const page of context.pages) {
    const group = context.groups.find((candidate) =>
      candidate.entries.some((entry) => !entry.reference && pageKey(entry.text) === page.key),
    );
    for (const field of ["openapi", "api"] as const) {
      const value = page.data[field];
      if (value === undefined) continue;
      const where = { file: page.path, key: field, line: page.keyLines[field] };
      const reference = typeof value === "string" ? parseOperationReference(value) : undefined;
      if (!reference) {
        findings.push(
          finding(
            "error",
            "page-operation-malformed",
            where,
            `${page.path} has ${field}: ${JSON.stringify(value)}, which is not "METHOD /path", so the page has no operation to show`,
            field === "openapi"
              ? 'Write it as "METHOD /path" exactly as in the spec, e.g. openapi: "GET /pets/{petId}" (prefix the spec name when the site has several: "openapi.yaml GET /pets").'
              : 'Write it as "METHOD /path" or "METHOD https://api.example.com/path", e.g. api: "POST /pets".',
          ),
        );
        continue;
      }
      const located = { ...where, operation: reference.text };
      // `api` metadata may document any endpoint: a full URL on a host the
      // site's API is not on names another API, not an operation of a spec.
      if (field === "api" && isOnAnotherHost(reference.target, allBases(context))) continue;
      const spec = specFor(context, reference, group?.openapi, located, findings);
      if (!spec) continue;
      const operation = match(context, spec, reference);
      if (operation) {
        pages.push({ operation, text: reference.text, where: located, page, field });
        continue;
      }
      if (isUnresolved(context, spec, reference)) continue;
      if (field === "api") {
        findings.push(apiNotInSpec(context, spec, reference, located, page.path));
        continue;
      }
      findings.push(
        notFound(
          context,
          spec,
          reference,
          located,
          "page-operation-not-found",
          (found) =>
            `${page.path} names "${reference.text}" in its ${field} metadata, but ${spec.path} has ${found}, so the page is blank`,
        ),
      );
    }
  }
  return { navigation, pages, findings };
}

function specFor(
  context: ReferenceContext,
  reference: OperationReference,
  groupSpec: string | undefined,
  where: LocationDraft,
  findings: SiteFinding[],
): LoadedSpec | undefined {
  const name = reference.spec ?? groupSpec ?? context.defaultSpec ?? onlySpec(context.catalog);
  if (name === undefined) {
    findings.push(
      finding(
        "error",
        "spec-missing",
        where,
        `"${reference.text}" names an operation, but no OpenAPI file is configured, so its page is blank`,
        `Set api.openapi in ${context.reader.file} (or the group's openapi) to the path of the OpenAPI file.`,
      ),
    );
    return undefined;
  }
  const lookup = context.catalog.lookup(name);
  if (lookup.status === "loaded") return lookup.spec;
  if (lookup.status === "unusable") return undefined;
  const known = context.catalog.paths;
  findings.push(
    finding(
      "error",
      "spec-missing",
      where,
      `"${reference.text}" names the spec "${name}", which is not one of the site's OpenAPI files, so its page is blank`,
      known.length > 0
        ? `Prefix the operation with one of ${known.map((path) => `"${path}"`).join(", ")}, or drop the prefix to use the group's spec.`
        : `Add the OpenAPI file and set api.openapi in ${context.reader.file}.`,
    ),
  );
  return undefined;
}

function match(
  context: ReferenceContext,
  spec: LoadedSpec,
  reference: OperationReference,
): SpecOperation | undefined {
  const paths = candidatePaths(reference.target, bases(context, spec));
  return spec.operations.find(
    (operation) => operation.method === reference.method && paths.includes(operation.path),
  );
}

/** True when the reference falls on a path item this file could not resolve (a `$ref` elsewhere). */
function isUnresolved(
  context: ReferenceContext,
  spec: LoadedSpec,
  reference: OperationReference,
): boolean {
  const paths = candidatePaths(reference.target, bases(context, spec));
  return spec.unresolvedPaths.some((path) => paths.includes(path));
}

/**
 * An `api` page whose operation the spec lacks is not blank: its playground
 * is built from the page's own metadata. It only lacks what the spec would
 * add (parameters, schemas, responses), which is worth a warning.
 */
function apiNotInSpec(
  context: ReferenceContext,
  spec: LoadedSpec,
  reference: OperationReference,
  where: LocationDraft,
  pagePath: string,
): SiteFinding {
  const base = notFound(
    context,
    spec,
    reference,
    where,
    "page-operation-not-found",
    (found) => found,
  );
  return finding(
    "warning",
    "page-api-not-in-spec",
    where,
    `${pagePath} names "${reference.text}" in its api metadata, but ${spec.path} has ${base.message}: the page still shows, with a playground built from its own metadata only (no parameters, schemas or responses from the spec)`,
    `${base.fix} Leave it as it is if the endpoint is meant to be documented by hand.`,
  );
}

function notFound(
  context: ReferenceContext,
  spec: LoadedSpec,
  reference: OperationReference,
  where: LocationDraft,
  code: "navigation-operation-not-found" | "page-operation-not-found",
  describe: (found: string) => string,
): SiteFinding {
  const path = candidatePaths(reference.target, bases(context, spec))[0] ?? reference.target;
  const suggestion = suggestOperation(reference.method, path, spec.operations);
  const elsewhere = context.catalog.specs.find(
    (other) =>
      other !== spec &&
      other.operations.some(
        (operation) => operation.method === reference.method && operation.path === path,
      ),
  );
  const written = reference.spec ? `${reference.spec} ` : "";
  let fix: string;
  if (suggestion) {
    fix = `Write "${written}${suggestion.operation.key}" (${suggestion.reason}).`;
  } else if (elsewhere) {
    fix = `The operation is in ${elsewhere.path}: write "${elsewhere.path} ${reference.method} ${path}" or set the group's openapi to "${elsewhere.path}".`;
  } else {
    const sample = spec.operations
      .slice(0, 3)
      .map((operation) => `"${operation.key}"`)
      .join(", ");
    fix = `Use an operation of ${spec.path} exactly as it is written there (e.g. ${sample}), or add ${reference.method.toUpperCase()} ${path} to the spec.`;
  }
  const found = suggestion
    ? `no operation "${reference.method} ${path}" (operations match exactly)`
    : `no operation "${reference.method} ${path}"`;
  return finding("error", code, where, describe(found), fix);
}

function bases(context: ReferenceContext, spec: LoadedSpec): string[] {
  return [...(context.baseUrl ? [context.baseUrl] : []), ...spec.servers];
}

/** `api.baseUrl` and the servers of every spec: where the site's API lives. */
function allBases(context: ReferenceContext): string[] {
  return [
    ...(context.baseUrl ? [context.baseUrl] : []),
    ...context.catalog.specs.flatMap((spec) => spec.servers),
  ];
}

function onlySpec(catalog: SpecCatalog): string | undefined {
  const paths = catalog.paths;
  return paths.length === 1 ? paths[0] : undefined;
}
