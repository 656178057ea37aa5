import type { SeededRandom } from "../http/seeded-random.js";
import type { MessagingState, SubscriptionLink } from "./messaging-state.js";

/**
 * The messaging simulator's starting data: an active link for the approver
 * (first), a link nobody opened yet, and a revoked one.
 */
export function createSeededMessagingState(random: SeededRandom, origin: string): MessagingState {
  const link = (
    label: string,
    state: SubscriptionLink["state"],
    createdAt: string,
  ): SubscriptionLink => {
    const id = random.uuid();
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
      link("approver", "active", "2025-05-12T09:00:00Z"),
      link("ops-oncall", "pending", "2025-05-28T09:00:00Z"),
      link("former-approver", "revoked", "2024-12-02T09:00:00Z"),
    ],
    messages: [],
    interactions: [],
    idempotency: new Map(),
  };
}
