import { type Route, type RouteOverrides, resolveRoutes } from "../route-table.js";

/** One operation of the documentation service: its method and its path below the base URL. */
export type DocsRoute = Route;

/**
 * Where each operation of the documentation CLI service lives (docs/contract.md
 *§3). Pass `routes` to `DocsClient` to override any of them.
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
export type DocsRouteOverrides = RouteOverrides<DocsRouteName>;

/**
 * Merges `overrides` over the default table; every problem is named in one
 * `ConfigurationError`.
 */
export function resolveDocsRoutes(overrides: DocsRouteOverrides = {}): DocsRoutes {
  return resolveRoutes("a docs", docsRoutes, overrides);
}
