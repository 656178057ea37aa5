import type { Route } from "./route.js";

/** The outcome of looking a request up in a route table. */
export type RouteMatch =
  | { kind: "found"; route: Route; params: Record<string, string> }
  | { kind: "wrong-method"; allowed: string[] }
  | { kind: "not-found" };

/**
 * Finds the route for a method and a path (relative to the base path). A path
 * that exists under another method gives `wrong-method` with the allowed ones,
 * for a 405 with an `Allow` header.
 */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch {
  const allowed: string[] = [];
  for (const route of routes) {
    const params = matchPattern(route.pattern, path);
    if (!params) continue;
    if (route.method === method) return { kind: "found", route, params };
    allowed.push(route.method);
  }
  return allowed.length > 0 ? { kind: "wrong-method", allowed } : { kind: "not-found" };
}

function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const patternParts = pattern.split("/").filter(Boolean);
  const pathParts = path.split("/").filter(Boolean);
  if (patternParts.length !== pathParts.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of patternParts.entries()) {
    const actual = pathParts[index] ?? "";
    if (part.startsWith(":")) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
      params[part.slice(1)] = decoded;
    } else if (part !== actual) {
      return undefined;
    }
  }
  return params;
}
