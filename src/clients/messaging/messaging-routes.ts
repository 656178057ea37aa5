import { type Route, type RouteOverrides, resolveRoutes } from "../route-table.js";

/** One operation of the messaging service: its method and its path below the base URL. */
export type MessagingRoute = Route;

/**
 * Where each messaging operation lives (docs/contract.md §4). Pass `routes` to
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
export type MessagingRouteOverrides = RouteOverrides<MessagingRouteName>;

/**
 * Merges `overrides` over the default table; every problem is named in one
 * `ConfigurationError`.
 */
export function resolveMessagingRoutes(overrides: MessagingRouteOverrides = {}): MessagingRoutes {
  return resolveRoutes("a messaging", messagingRoutes, overrides);
}
