import { describeJsonValue, isJsonObject } from "../http/json-values.js";
import type { Route } from "../http/route.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";
import { toRfc3339 } from "../http/timestamps.js";
import type { MessagingService } from "./messaging-service.js";
import type { SubscriptionLink } from "./messaging-state.js";

/**
 * `POST /v1/subscription-links` and `GET /v1/subscription-links/{id}`. The
 * consent page a subscriber opens is in `approval-page-routes.ts`.
 */
export function linkRoutes(service: MessagingService): Route[] {
  return [
    {
      method: "POST",
      pattern: "/v1/subscription-links",
      handle: ({ body }) => ({ status: 201, body: { ...createLink(service, body) } }),
    },
    {
      method: "GET",
      pattern: "/v1/subscription-links/:linkId",
      handle: ({ params }) => ({ body: { ...findLink(service, params.linkId) } }),
    },
  ];
}

/** The link with this id (a pending link past its expiry turns expired), or a 404 naming it. */
export function findLink(service: MessagingService, linkId: string | undefined): SubscriptionLink {
  const link = service.state.links.find((candidate) => candidate.subscription_link_id === linkId);
  if (!link) {
    throw new SimulatorHttpError(
      404,
      "subscription_link_not_found",
      `Subscription link ${linkId ?? ""} does not exist.`,
    );
  }
  const expiresAt = link.expires_at === undefined ? Number.NaN : Date.parse(link.expires_at);
  if (link.state === "pending" && expiresAt <= service.now().getTime()) link.state = "expired";
  return link;
}

function createLink(service: MessagingService, body: unknown): SubscriptionLink {
  if (body !== undefined && !isJsonObject(body)) {
    throw new SimulatorHttpError(
      400,
      "invalid_body",
      `Body must be an object {label?, expires_in_s?}; got ${describeJsonValue(body)}.`,
    );
  }
  const label = body?.label;
  const expiresIn = body?.expires_in_s;
  if (label !== undefined && typeof label !== "string") {
    throw new SimulatorHttpError(400, "invalid_label", "label must be a string when given.");
  }
  if (expiresIn !== undefined && !isPositiveInteger(expiresIn)) {
    throw new SimulatorHttpError(
      400,
      "invalid_expires_in_s",
      `expires_in_s must be a positive integer number of seconds; got ${describeJsonValue(expiresIn)}.`,
    );
  }
  const now = service.now();
  const id = service.newId();
  const link: SubscriptionLink = {
    subscription_link_id: id,
    url: `${service.origin}/subscribe/${id}`,
    state: "pending",
    ...(label === undefined ? {} : { label }),
    created_at: toRfc3339(now),
    ...(expiresIn === undefined
      ? {}
      : { expires_at: toRfc3339(new Date(now.getTime() + Number(expiresIn) * 1000)) }),
  };
  service.state.links.push(link);
  return link;
}

/** True for an integer of 1 or more. */
export function isPositiveInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1;
}
