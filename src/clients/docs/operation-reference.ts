import { withoutTrailingSlashes } from "../../internal/without-trailing-slashes.js";

/** HTTP methods an OpenAPI path item can hold, lower case as the spec writes them. */
export const operationMethods = [
  "get",
  "put",
  "post",
  "delete",
  "options",
  "head",
  "patch",
  "trace",
];

/** A `METHOD /path` reference, as written in navigation or page front matter. */
export interface OperationReference {
  /** The spec-name prefix, e.g. `openapi.yaml` in `openapi.yaml GET /pets`. */
  spec?: string;
  /** The method as written (an exact match needs upper case). */
  method: string;
  /** The path or full URL as written. */
  target: string;
  /** The whole reference text. */
  text: string;
}

const referencePattern = /^\s*(?:(\S+)\s+)?([A-Za-z]+)\s+(\S+)\s*$/;

/**
 * Reads `METHOD /path`, `spec METHOD /path` or `METHOD https://host/path`;
 * undefined when the text is not of that form or the method is not an HTTP
 * method (so `guides/quickstart` is a page, not an operation).
 */
export function parseOperationReference(text: string): OperationReference | undefined {
  const match = referencePattern.exec(text);
  if (!match) return undefined;
  const [, spec, method, target] = match;
  if (!method || !target || !operationMethods.includes(method.toLowerCase())) return undefined;
  return { ...(spec ? { spec } : {}), method, target, text: text.trim() };
}

/** True for a full `http(s)://` address. */
export function isAbsoluteUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/**
 * True when `target` is a full URL on a host that none of the known
 * absolute base addresses has: it names another API, not an operation of
 * this spec. Without any absolute base there is nothing to compare with.
 */
export function isOnAnotherHost(target: string, bases: readonly string[]): boolean {
  if (!isAbsoluteUrl(target)) return false;
  const origins = bases.filter(isAbsoluteUrl).map(originOf);
  return origins.length > 0 && !origins.includes(originOf(target));
}

function originOf(url: string): string {
  return (/^https?:\/\/[^/?#]+/i.exec(url)?.[0] ?? url).toLowerCase();
}

/**
 * The spec paths a reference target may stand for: the path itself, or for
 * a full URL the rest after each known base address (api.baseUrl, the spec's
 * servers) and its bare path.
 */
export function candidatePaths(target: string, bases: readonly string[]): string[] {
  if (!isAbsoluteUrl(target)) return [target];
  const candidates: string[] = [];
  for (const base of bases) {
    const trimmed = withoutTrailingSlashes(base);
    if (trimmed === "") continue;
    if (isAbsoluteUrl(trimmed)) {
      // Hosts compare without case; paths with it.
      const basePath = withoutTrailingSlashes(urlPath(trimmed));
      const path = urlPath(target);
      if (originOf(target) === originOf(trimmed) && path.startsWith(`${basePath}/`)) {
        candidates.push(path.slice(basePath.length));
      }
    } else {
      const path = urlPath(target);
      const prefix = trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
      if (path.startsWith(`${prefix}/`)) candidates.push(path.slice(prefix.length));
    }
  }
  candidates.push(urlPath(target));
  return [...new Set(candidates.map(withoutQueryOrFragment))];
}

function urlPath(url: string): string {
  const match = /^https?:\/\/[^/?#]+(\/[^?#]*)?/i.exec(url);
  return match?.[1] ?? "/";
}

/** `url` up to its query or fragment, whichever comes first. */
function withoutQueryOrFragment(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
