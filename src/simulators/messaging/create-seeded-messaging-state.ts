import type { MessagingState, SubscriptionLink } from "./messaging-state.js";

/** The ids of the seeded links: the approver's, the unopened one, the revoked one. */
export type SeededLinkIds = readonly [approver: string, unopened: string, revoked: string];

/**
 * The messaging simulator's starting data: an active link for the approver
 * (first), a link nobody opened yet, and a revoked one, with these ids.
 */
export function createSeededMessagingState(linkIds: SeededLinkIds, origin: string): MessagingState {
  const link = (
    id: string,
    label: string,
    state: SubscriptionLink["state"],
    createdAt: string,
  ): SubscriptionLink => {
    return {
      subscription_link_id: id,
      url: `${origin}/subscribe/${id}`,
      state,
      label,
      created_at: createdAt,
      ...(state === "active" ? { activated_at: createdAt.replace("T09", "T10") } : {}),
    };
  };
  return {
    links: [
      link(linkIds[0], "approver", "active", "2025-05-12T09:00:00Z"),
      link(linkIds[1], "ops-oncall", "pending", "2025-05-28T09:00:00Z"),
      link(linkIds[2], "former-approver", "revoked", "2024-12-02T09:00:00Z"),
    ],
    messages: [],
    interactions: [],
    idempotency: new Map(),
  };
}
