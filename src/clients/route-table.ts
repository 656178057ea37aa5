import { ConfigurationError } from "../errors/configuration-error.js";

/** One operation of a service: its method and its path below the client's base URL. */
export interface Route {
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  /** Path appended to the base URL; `{name}` placeholders are filled with encoded ids. */
  path: string;
}

/** Overrides for some routes of a table, or only the method or path of one. */
export type RouteOverrides<Name extends string> = Partial<Record<Name, Partial<Route>>>;

const methods = new Set(["GET", "POST", "PUT", "DELETE", "PATCH"]);
const placeholderPattern = /\{([A-Za-z_]+)\}/g;

/**
 * Merges `overrides` over a client's default route table, so a user whose
 * service differs need not fork. Every problem (an unknown operation, a bad
 * method, an empty path, a path that drops or adds a placeholder) is named in
 * one `ConfigurationError`.
 */
export function resolveRoutes<Name extends string>(
  service: string,
  defaults: Readonly<Record<Name, Route>>,
  overrides: RouteOverrides<Name> = {},
): Record<Name, Route> {
  const problems: string[] = [];
  for (const name of Object.keys(overrides)) {
    if (!Object.hasOwn(defaults, name)) {
      problems.push(
        `routes.${name} is not ${service} operation: use one of ${Object.keys(defaults).join(", ")}`,
      );
    }
  }
  const resolved = {} as Record<Name, Route>;
  for (const [name, fallback] of Object.entries(defaults) as [Name, Route][]) {
    const route: Route = { ...fallback, ...overrides[name] };
    if (!methods.has(route.method)) {
      problems.push(
        `routes.${name}.method "${String(route.method)}" is not an HTTP method: use GET, POST, PUT, DELETE or PATCH`,
      );
    }
    if (typeof route.path !== "string" || route.path.trim() === "") {
      problems.push(`routes.${name}.path must be a non-empty string such as "${fallback.path}"`);
    } else {
      problems.push(...placeholderProblems(name, route.path, fallback.path));
    }
    resolved[name] = route;
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return resolved;
}

/**
 * Fills the `{name}` placeholders of a route path with URL-encoded ids. An id
 * that is empty, not a string, or `.`/`..` (which URL resolution would turn
 * into a different path) is rejected before anything is sent.
 */
export function fillRoutePath(path: string, parameters: Record<string, unknown>): string {
  const problems: string[] = [];
  const filled = path.replace(placeholderPattern, (placeholder, name: string) => {
    const value = parameters[name];
    const problem = describeBadId(value, name);
    if (problem) {
      problems.push(problem);
      return placeholder;
    }
    return encodeURIComponent(value as string);
  });
  if (problems.length > 0) throw new ConfigurationError(problems);
  return filled;
}

function placeholderProblems(name: string, path: string, defaultPath: string): string[] {
  const expected = placeholders(defaultPath);
  const given = placeholders(path);
  const problems: string[] = [];
  for (const placeholder of expected) {
    if (!given.includes(placeholder)) {
      problems.push(
        `routes.${name}.path "${path}" lacks the {${placeholder}} placeholder the operation fills`,
      );
    }
  }
  for (const placeholder of given) {
    if (!expected.includes(placeholder)) {
      const fix =
        expected.length > 0 ? `use ${expected.map((item) => `{${item}}`).join(", ")}` : "remove it";
      problems.push(
        `routes.${name}.path "${path}" has {${placeholder}}, which ${name} cannot fill: ${fix}`,
      );
    }
  }
  return problems;
}

function placeholders(path: string): string[] {
  return [...path.matchAll(placeholderPattern)].map((match) => match[1]!);
}

function describeBadId(value: unknown, name: string): string | undefined {
  if (typeof value !== "string") {
    return `${name} must be a string id, got ${value === null ? "null" : typeof value}`;
  }
  if (value.trim() === "") return `${name} must not be empty: pass the id the service returned`;
  if (value === "." || value === "..") {
    return `${name} "${value}" is not a valid id: pass the id the service returned`;
  }
  return undefined;
}
