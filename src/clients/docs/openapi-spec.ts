import { loadOnFirstUse } from "../../internal/load-on-first-use.js";

const loadYaml = loadOnFirstUse<typeof import("yaml")>("yaml");

import { operationMethods } from "./operation-reference.js";
import { finding, type SiteFinding } from "./site-finding.js";
import { createLineLocator, formatKey, type KeyPath, type LineLocator } from "./source-lines.js";

/** One operation of an OpenAPI file. */
export interface SpecOperation {
  /** The spec's repository path. */
  spec: string;
  /** Upper case, e.g. `GET`. */
  method: string;
  /** The path key exactly as the spec writes it, e.g. `/pets/{petId}`. */
  path: string;
  /** `METHOD /path`, the form navigation and page metadata use. */
  key: string;
  /** `x-hidden: true` on the operation or its path item. */
  hidden: boolean;
  /** `x-excluded: true` on the operation or its path item. */
  excluded: boolean;
  /** Names of the header parameters the operation takes (unresolved `$ref`s left out). */
  headerParameters: string[];
  /** Key path of the operation in the spec, e.g. `["paths", "/pets", "get"]`. */
  keyPath: KeyPath;
  /** Where `x-hidden: true` is set (the operation or its path item), when it is. */
  hiddenKeyPath?: KeyPath;
  /** Where `x-excluded: true` is set, when it is. */
  excludedKeyPath?: KeyPath;
}

/** An OpenAPI 3.x file that parsed and has operations. */
export interface LoadedSpec {
  path: string;
  operations: SpecOperation[];
  /**
   * Path keys whose path item is a `$ref` to another file: their operations
   * are unknown here, so references to them are neither matched nor called
   * missing.
   */
  unresolvedPaths: string[];
  /** `servers[].url` values, to match full URLs in page metadata. */
  servers: string[];
  locate: LineLocator;
}

/**
 * Parses an OpenAPI file (text, JSON or YAML, or an object) and checks the
 * first cause of a blank page: a spec that is unreadable, not OpenAPI 3.x,
 * or without paths. Returns the spec only when it can generate pages.
 */
export function loadOpenApiSpec(
  path: string,
  source: unknown,
): { spec?: LoadedSpec; findings: SiteFinding[] } {
  const blank = "pages generated from it are blank or missing";
  let value: unknown = source;
  const text = typeof source === "string" ? source : undefined;
  if (text !== undefined) {
    const document = loadYaml().parseDocument(text);
    const error = document.errors[0];
    if (error) {
      const line = error.linePos?.[0]?.line;
      return {
        findings: [
          finding(
            "error",
            "spec-unparsable",
            { file: path, line },
            `${path} is not valid JSON or YAML (${error.message.split("\n")[0]}), so ${blank}`,
            `Fix the syntax${line ? ` at line ${line}` : ""}; a YAML or JSON linter shows the exact spot.`,
          ),
        ],
      };
    }
    value = document.toJS();
  }
  const locate = createLineLocator(text);
  if (!isObject(value)) {
    return {
      findings: [
        finding(
          "error",
          "spec-not-openapi-3",
          { file: path },
          `${path} is ${value === null || value === undefined ? "empty" : "not an object"}, not an OpenAPI document, so ${blank}`,
          'Put an OpenAPI 3.x document there, starting with `openapi: "3.1.0"`, `info` and `paths`.',
        ),
      ],
    };
  }
  const version = value.openapi;
  if (typeof version !== "string" || !/^3\.\d+/.test(version)) {
    const swagger = typeof value.swagger === "string";
    return {
      findings: [
        finding(
          "error",
          "spec-not-openapi-3",
          {
            file: path,
            key: swagger ? "swagger" : "openapi",
            line: locate([swagger ? "swagger" : "openapi"]),
          },
          swagger
            ? `${path} is Swagger ${String(value.swagger)}, not OpenAPI 3.x, so ${blank}`
            : `${path} has ${version === undefined ? "no openapi version" : `openapi: ${JSON.stringify(version)}`}, not 3.x, so ${blank}`,
          swagger
            ? "Convert the file to OpenAPI 3.x (e.g. with swagger2openapi) and set `openapi: 3.0.3` or later."
            : 'Set the top-level `openapi` key to a 3.x version such as "3.0.3" or "3.1.0".',
        ),
      ],
    };
  }
  const paths = value.paths;
  const { operations, unresolvedPaths, findings } = isObject(paths)
    ? readOperations(path, value, paths, locate)
    : { operations: [], unresolvedPaths: [], findings: [] };
  if (operations.length === 0 && unresolvedPaths.length === 0) {
    return {
      findings: [
        finding(
          "error",
          "spec-no-paths",
          { file: path, key: "paths", line: locate(["paths"]) },
          `${path} has no operations under \`paths\`, so no API page can be generated from it`,
          "Add the API's operations under `paths` (e.g. `/pets: { get: {...} }`), or point api.openapi at the file that has them.",
        ),
      ],
    };
  }
  const servers = Array.isArray(value.servers)
    ? value.servers.flatMap((server: unknown) =>
        isObject(server) && typeof server.url === "string" ? [server.url] : [],
      )
    : [];
  return { spec: { path, operations, unresolvedPaths, servers, locate }, findings };
}

function readOperations(
  spec: string,
  document: Record<string, unknown>,
  paths: Record<string, unknown>,
  locate: LineLocator,
): { operations: SpecOperation[]; unresolvedPaths: string[]; findings: SiteFinding[] } {
  const operations: SpecOperation[] = [];
  const unresolvedPaths: string[] = [];
  const findings: SiteFinding[] = [];
  for (const [path, written] of Object.entries(paths)) {
    if (!isObject(written)) continue;
    const resolved = resolvePathItem(document, written, ["paths", path]);
    if (resolved.problem !== undefined) {
      if (resolved.external) unresolvedPaths.push(path);
      findings.push(
        finding(
          resolved.external ? "warning" : "error",
          resolved.external ? "spec-not-checked" : "spec-ref-broken",
          { file: spec, key: formatKey(["paths", path, "$ref"]), line: locate(["paths", path]) },
          resolved.external
            ? `The path item ${path} in ${spec} is ${resolved.problem}, which is not checked here, so its operations are taken on trust`
            : `The path item ${path} in ${spec} is ${resolved.problem}, so its operations have no pages`,
          resolved.external
            ? "Nothing to fix if the referenced file is published with the spec; to have it checked, inline the path item or point the $ref inside this file (#/components/pathItems/...)."
            : "Point the $ref at an existing path item in this file (e.g. #/components/pathItems/Pets), or write the path item inline.",
        ),
      );
      continue;
    }
    const { item, keyPath: itemKeyPath } = resolved;
    const sharedHeaders = headerNames(item.parameters);
    for (const method of operationMethods) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const upper = method.toUpperCase();
      const hiddenKeyPath = flagKeyPath("x-hidden", itemKeyPath, method, item, operation);
      const excludedKeyPath = flagKeyPath("x-excluded", itemKeyPath, method, item, operation);
      operations.push({
        spec,
        method: upper,
        path,
        key: `${upper} ${path}`,
        hidden: hiddenKeyPath !== undefined,
        excluded: excludedKeyPath !== undefined,
        headerParameters: [...new Set([...sharedHeaders, ...headerNames(operation.parameters)])],
        keyPath: [...itemKeyPath, method],
        ...(hiddenKeyPath ? { hiddenKeyPath } : {}),
        ...(excludedKeyPath ? { excludedKeyPath } : {}),
      });
    }
  }
  return { operations, unresolvedPaths, findings };
}

type ResolvedPathItem =
  | { item: Record<string, unknown>; keyPath: KeyPath; problem?: undefined }
  | { problem: string; external: boolean };

/**
 * Follows a path item's `$ref` (OpenAPI allows one on path items) within the
 * document, as many hops as it takes; a reference to another file cannot be
 * followed from here.
 */
function resolvePathItem(
  document: Record<string, unknown>,
  written: unknown,
  keyPath: KeyPath,
): ResolvedPathItem {
  let item = written;
  let at = keyPath;
  const seen = new Set<string>();
  while (isObject(item) && typeof item.$ref === "string") {
    const ref = item.$ref;
    if (!ref.startsWith("#")) return { problem: `a $ref to another file (${ref})`, external: true };
    if (seen.has(ref)) return { problem: `a $ref cycle through ${ref}`, external: false };
    seen.add(ref);
    const pointer = parsePointer(ref);
    const target = pointer === undefined ? undefined : lookup(document, pointer);
    if (pointer === undefined || target === undefined) {
      return { problem: `a $ref to ${ref}, which does not exist in the file`, external: false };
    }
    item = target;
    at = pointer;
  }
  return isObject(item)
    ? { item, keyPath: at }
    : { problem: `a $ref to ${formatKey(at)}, which is not a path item`, external: false };
}

/** `#/components/pathItems/Pets` as key segments (RFC 6901 escapes decoded). */
function parsePointer(ref: string): string[] | undefined {
  const fragment = ref.slice(1);
  if (fragment === "") return [];
  if (!fragment.startsWith("/")) return undefined;
  return fragment
    .slice(1)
    .split("/")
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~"));
}

function lookup(document: unknown, pointer: readonly string[]): unknown {
  let value = document;
  for (const segment of pointer) {
    if (Array.isArray(value) && /^\d+$/.test(segment)) value = value[Number(segment)];
    else if (isObject(value) && Object.hasOwn(value, segment)) value = value[segment];
    else return undefined;
  }
  return value;
}

function flagKeyPath(
  flag: string,
  itemKeyPath: KeyPath,
  method: string,
  item: Record<string, unknown>,
  operation: Record<string, unknown>,
): KeyPath | undefined {
  if (operation[flag] === true) return [...itemKeyPath, method, flag];
  if (item[flag] === true) return [...itemKeyPath, flag];
  return undefined;
}

function headerNames(parameters: unknown): string[] {
  if (!Array.isArray(parameters)) return [];
  return parameters.flatMap((parameter: unknown) =>
    isObject(parameter) && parameter.in === "header" && typeof parameter.name === "string"
      ? [parameter.name]
      : [],
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
