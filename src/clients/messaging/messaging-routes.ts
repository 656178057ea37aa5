import { ConfigurationError } from "../../errors/configuration-error.js";

/** One operation of the messaging service: its method and its path below the base URL. */
export interface MessagingRoute {
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  /** Path appended to `baseUrl`; `{name}` placeholders are filled with encoded ids. */
  path: string;
}

/**
 * Where each messaging operation lives (CONTRACT §4). Pass `routes` to
 * `MessagingClient` to override any of them for a service that differs.
 */
export const messagingRoutes = {
  getCapabilities: { method: "GET", path: "/v1/capabilities" },
  createSubscriptionLink: { method: "POST", path: "/v1/subscription-links" },
  getSubscriptionLink: { method: "GET", path: "/v1/subscription-links/{subscription_link_id}" },
  sendMessage: { method: "POST", path: "/v1/messages" },
  getMessage: { method: "GET", path: "/v1/messages/{message_id}" },
  cancelMessage: { method: "POST", path: "/v1/messages/{message_id}/cancel" },
  getInteraction: { method: "GET", path: "/v1/interactions/{interaction_id}" },
} as const satisfies Record<string, MessagingRoute>;

/** Name of one messaging operation, e.g. `sendMessage`. */
export type MessagingRouteName = keyof typeof messagingRoutes;

/** The full route table of a messaging client. */
export type MessagingRoutes = Record<MessagingRouteName, MessagingRoute>;

/** Overrides for some routes, or only the method or path of one. */
export type MessagingRouteOverrides = Partial<Record<MessagingRouteName, Partial<MessagingRoute>>>;

const methods = new Set(["GET", "POST", "PUT", "DELETE", "PATCH"]);

/**
 * Merges `overrides` over the default table. Each overridden path must keep
 * the placeholders the operation fills, e.g. `{message_id}` for `getMessage`.
 */
export function resolveMessagingRoutes(overrides: MessagingRouteOverrides = {}): MessagingRoutes {
  const problems: string[] = [];
  const resolved = {} as MessagingRoutes;
  for (const name of Object.keys(overrides)) {
    if (!Object.hasOwn(messagingRoutes, name)) {
      problems.push(
        `routes.${name} is not a messaging operation: use one of ${Object.keys(messagingRoutes).join(", ")}`,
      );
    }
  }
  for (const [name, defaults] of Object.entries(messagingRoutes) as [
    MessagingRouteName,
    MessagingRoute,
  ][]) {
    const route: MessagingRoute = { ...defaults, ...overrides[name] };
    if (!methods.has(route.method)) {
      problems.push(
        `routes.${name}.method "${String(route.method)}" is not an HTTP method: use GET, POST, PUT, DELETE or PATCH`,
      );
    }
    if (typeof route.path !== "string") {
      problems.push(`routes.${name}.path must be a string such as "${defaults.path}"`);
    } else {
      for (const placeholder of defaults.path.match(/\{[a-z_]+\}/g) ?? []) {
        if (!route.path.includes(placeholder)) {
          problems.push(
            `routes.${name}.path "${route.path}" lacks the ${placeholder} placeholder the operation fills`,
          );
        }
      }
    }
    resolved[name] = route;
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return resolved;
}
