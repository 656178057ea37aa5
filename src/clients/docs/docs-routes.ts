import { ConfigurationError } from "../../errors/configuration-error.js";

/** One operation of the documentation CLI service: its method and its path below the base URL. */
export interface DocsRoute {
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  /** Path appended to `baseUrl` (which ends in `/cli/v1`); `{documentationId}` is filled in. */
  path: string;
}

/**
 * Where each operation of the documentation CLI service lives (seed 001,
 * CONTRACT §3). Pass `routes` to `DocsClient` to override any of them.
 */
export const docsRoutes = {
  getCurrentUser: { method: "GET", path: "/auth/user" },
  listDocumentations: { method: "GET", path: "/documentations" },
  createDocumentation: { method: "POST", path: "/documentations" },
  getManifest: { method: "GET", path: "/documentations/{documentationId}/manifest" },
  pullFiles: { method: "POST", path: "/documentations/{documentationId}/docs/paths" },
  pushFiles: { method: "POST", path: "/documentations/{documentationId}/docs/paths/push" },
} as const satisfies Record<string, DocsRoute>;

/** Name of one operation, e.g. `pullFiles`. */
export type DocsRouteName = keyof typeof docsRoutes;

/** The full route table of a docs client. */
export type DocsRoutes = Record<DocsRouteName, DocsRoute>;

/** Overrides for some routes, or only the method or path of one. */
export type DocsRouteOverrides = Partial<Record<DocsRouteName, Partial<DocsRoute>>>;

const methods = new Set(["GET", "POST", "PUT", "DELETE", "PATCH"]);
const placeholderPattern = /\{([A-Za-z_]+)\}/g;

/**
 * Merges `overrides` over the default table. An overridden path must keep the
 * placeholders its operation fills and add no other.
 */
export function resolveDocsRoutes(overrides: DocsRouteOverrides = {}): DocsRoutes {
  const problems: string[] = [];
  for (const name of Object.keys(overrides)) {
    if (!Object.hasOwn(docsRoutes, name)) {
      problems.push(
        `routes.${name} is not a docs operation: use one of ${Object.keys(docsRoutes).join(", ")}`,
      );
    }
  }
  const resolved = {} as DocsRoutes;
  for (const [name, defaults] of Object.entries(docsRoutes) as [DocsRouteName, DocsRoute][]) {
    const route: DocsRoute = { ...defaults, ...overrides[name] };
    if (!methods.has(route.method)) {
      problems.push(
        `routes.${name}.method "${String(route.method)}" is not an HTTP method: use GET, POST, PUT, DELETE or PATCH`,
      );
    }
    if (typeof route.path !== "string") {
      problems.push(`routes.${name}.path must be a string such as "${defaults.path}"`);
    } else {
      const expected = placeholders(defaults.path);
      const given = placeholders(route.path);
      for (const placeholder of expected) {
        if (!given.includes(placeholder)) {
          problems.push(
            `routes.${name}.path "${route.path}" lacks the {${placeholder}} placeholder the operation fills`,
          );
        }
      }
      for (const placeholder of given) {
        if (!expected.includes(placeholder)) {
          problems.push(
            `routes.${name}.path "${route.path}" has {${placeholder}}, which ${name} cannot fill: ${
              expected.length > 0
                ? `use ${expected.map((item) => `{${item}}`).join(", ")}`
                : "remove it"
            }`,
          );
        }
      }
    }
    resolved[name] = route;
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return resolved;
}

/** Fills `{name}` placeholders with URL-encoded values (checked by the caller). */
export function fillDocsRoutePath(path: string, parameters: Record<string, string>): string {
  return path.replace(placeholderPattern, (placeholder, name: string) => {
    const value = parameters[name];
    return value === undefined ? placeholder : encodeURIComponent(value);
  });
}

function placeholders(path: string): string[] {
  return [...path.matchAll(placeholderPattern)].map((match) => match[1]!);
}
