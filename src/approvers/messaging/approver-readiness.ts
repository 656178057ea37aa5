import { NotFoundError } from "../../errors/api-error.js";
import { AbortedError } from "../../errors/transport-errors.js";
import type { ApprovalMessagingClient } from "./approval-messaging-client.js";
import { describeMessagingError } from "./describe-messaging-error.js";

/** Whether the approver can ask now, and if not, why and how to fix it. */
export type ReadinessResult =
  | { ready: true; features: readonly string[] }
  | { ready: false; code: "approver_unavailable" | "messaging_error"; reason: string };

const createLinkAdvice =
  "create a consent link with POST /v1/subscription-links (MessagingClient.createSubscriptionLink), open its URL on the approver's device, then pass its id as subscriptionLinkId";

/**
 * Checks, before the first question, that the approver's subscription link
 * is `active` and that the provider offers `interactions`, and keeps the
 * provider's features (whether it carries free text). A success is
 * remembered; a failure is not, so the next request checks again (the
 * operator may have fixed it meanwhile), and `forget()` makes the next
 * request check again after a send failed.
 */
export class ApproverReadiness {
  readonly #client: ApprovalMessagingClient;
  readonly #subscriptionLinkId: string;
  #ready = false;
  #features: readonly string[] = [];

  constructor(client: ApprovalMessagingClient, subscriptionLinkId: string) {
    this.#client = client;
    this.#subscriptionLinkId = subscriptionLinkId;
  }

  /** Drops a remembered success. */
  forget(): void {
    this.#ready = false;
  }

  /** Both checks, run together; every problem found is named. Throws `AbortedError` when `signal` fires. */
  async check(signal: AbortSignal): Promise<ReadinessResult> {
    if (this.#ready) return { ready: true, features: this.#features };
    const linkId = this.#subscriptionLinkId;
    const [capabilities, link] = await Promise.allSettled([
      this.#client.getCapabilities({ signal }),
      this.#client.getSubscriptionLink(linkId, { signal }),
    ]);
    if (signal.aborted) {
      throw new AbortedError("the approval readiness check was aborted by the caller", {
        cause: signal.reason,
      });
    }
    const unavailable: string[] = [];
    const failures: string[] = [];
    if (link.status === "rejected") {
      if (link.reason instanceof NotFoundError) {
        unavailable.push(`the subscription link "${linkId}" does not exist: ${createLinkAdvice}.`);
      } else {
        failures.push(
          `the subscription link "${linkId}" could not be read (${describeMessagingError(link.reason)}).`,
        );
      }
    } else if (link.value.state !== "active") {
      unavailable.push(linkStateProblem(linkId, link.value.state));
    }
    if (capabilities.status === "rejected") {
      failures.push(
        `the messaging service's capabilities could not be read (${describeMessagingError(capabilities.reason)}).`,
      );
    } else if (
      !capabilities.value.features.some((feature) => feature.toLowerCase() === "interactions")
    ) {
      const features = capabilities.value.features;
      unavailable.push(
        `the messaging provider does not support interactions (its features: ${features.length > 0 ? features.join(", ") : "none"}), so it cannot carry a question and its answer: configure a provider with the "interactions" feature.`,
      );
    }
    const problems = [...unavailable, ...failures];
    if (problems.length === 0 && capabilities.status === "fulfilled") {
      this.#ready = true;
      this.#features = capabilities.value.features.map((feature) => feature.toLowerCase());
      return { ready: true, features: this.#features };
    }
    return {
      ready: false,
      code: unavailable.length > 0 ? "approver_unavailable" : "messaging_error",
      reason: `No human approver can be asked, so the action was not run: ${problems.join(" Also, ")}`,
    };
  }
}

function linkStateProblem(linkId: string, state: string): string {
  if (state === "pending") {
    return `the subscription link "${linkId}" is still pending: the approver has not opened its consent URL yet; open it on the approver's device (or ${createLinkAdvice}).`;
  }
  return `the subscription link "${linkId}" is ${state}, not active: ${createLinkAdvice}.`;
}
