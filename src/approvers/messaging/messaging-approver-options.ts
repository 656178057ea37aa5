import { ConfigurationError } from "../../errors/configuration-error.js";
import type { Logger } from "../../internal/logger.js";
import type { ApprovalMessagingClient } from "./approval-messaging-client.js";

/** Options of `MessagingApprover`. */
export interface MessagingApproverOptions {
  /** The messaging client that reaches the approver, e.g. a `MessagingClient`. */
  client: ApprovalMessagingClient;
  /**
   * The approver's consent link, in state `active`: create it with
   * `POST /v1/subscription-links` (`MessagingClient.createSubscriptionLink`)
   * and have the approver open its URL on their device first.
   */
  subscriptionLinkId: string;
  /**
   * How long to wait for an answer before refusing (code `timeout`) and
   * cancelling the question. Also sets the message's expiry unless
   * `messageExpiresInSeconds` is given.
   * @default 600000 (10 minutes)
   */
  timeoutMs?: number | undefined;
  /** First pause between reads of the answer; the pauses grow up to 5 s. @default 250 */
  pollIntervalMs?: number | undefined;
  /**
   * Longest pause between reads of the answer: lower it where a person
   * answers quickly and the run should notice at once. @default 5000
   */
  maxPollIntervalMs?: number | undefined;
  /**
   * Receives the approver's warnings, under `component: "messaging-approver"`
   * (the audit line of each decision is the agent's).
   * @default the logger of the approval context (the agent's)
   */
  logger?: Logger | undefined;
  /** `expires_in_s` of the question. @default timeoutMs in whole seconds, rounded up */
  messageExpiresInSeconds?: number | undefined;
  /**
   * `expires_in_s` of a question asked for a suspended run
   * (`context.allowPending`): the person may answer long after the process
   * that asked has gone. @default 86400 (24 hours)
   */
  pendingExpiresInSeconds?: number | undefined;
  /**
   * Sends a reminder (a notification to the same link) this long before the
   * question expires, when nobody has answered yet. Runs that wait for the
   * answer only (not suspended runs, whose process is gone).
   */
  reminderBeforeExpiryMs?: number | undefined;
  /**
   * When the first approver does not answer within `afterMs`, the question is
   * withdrawn from them and put to a second approver link for the rest of
   * `timeoutMs`. Runs that wait for the answer only, and questions to one
   * link: a question put to people of a directory escalates by the asking
   * rule's `escalateTo` instead.
   *
   * @example
   * escalation: { subscriptionLinkId: "sl_oncall_lead", afterMs: 120_000 }
   */
  escalation?: { subscriptionLinkId: string; afterMs: number } | undefined;
  /**
   * A second person's active consent link, asked together with
   * `subscriptionLinkId` about actions that need two approvers (a
   * `required: 2` rule): both must approve the same action, and either's
   * denial refuses it. Without it such actions are refused
   * (`not_enough_approvers`).
   */
  secondSubscriptionLinkId?: string | undefined;
}

/** Options with their defaults filled in. */
export interface ResolvedMessagingApproverOptions {
  client: ApprovalMessagingClient;
  subscriptionLinkId: string;
  timeoutMs: number;
  pollIntervalMs: number | undefined;
  maxPollIntervalMs: number | undefined;
  logger: Logger | undefined;
  messageExpiresInSeconds: number;
  pendingExpiresInSeconds: number;
  reminderBeforeExpiryMs: number | undefined;
  escalation: { subscriptionLinkId: string; afterMs: number } | undefined;
  secondSubscriptionLinkId: string | undefined;
}

/** A day: how long a suspended run's question stays answerable by default. */
export const defaultPendingExpiresInSeconds = 86_400;

/** Ten minutes: long enough for a person to notice a message, short enough for a run to move on. */
export const defaultApprovalTimeoutMs = 600_000;

const clientMethods = [
  "getCapabilities",
  "getSubscriptionLink",
  "sendMessage",
  "getMessage",
  "cancelMessage",
  "getInteraction",
  "waitForInteraction",
] as const;

/** Checks `MessagingApprover` options, naming every bad one, and fills in the defaults. */
export function resolveMessagingApproverOptions(
  options: MessagingApproverOptions,
): ResolvedMessagingApproverOptions {
  if (typeof options !== "object" || options === null) {
    throw new ConfigurationError(
      "MessagingApprover needs options such as { client, subscriptionLinkId }",
    );
  }
  const problems: string[] = [];
  const { client, subscriptionLinkId, logger } = options;
  if (typeof client !== "object" || client === null) {
    problems.push(
      "client must be a messaging client, e.g. new MessagingClient({ baseUrl, token })",
    );
  } else {
    const missing = clientMethods.filter(
      (name) => typeof (client as unknown as Record<string, unknown>)[name] !== "function",
    );
    if (missing.length > 0) {
      problems.push(
        `client lacks the method(s) ${missing.join(", ")}: pass a MessagingClient or an object with the same methods`,
      );
    }
  }
  if (typeof subscriptionLinkId !== "string" || subscriptionLinkId.trim() === "") {
    problems.push(
      "subscriptionLinkId must be the id of the approver's active consent link: create one with POST /v1/subscription-links, open its URL on the approver's device, then pass its id",
    );
  }
  const timeoutMs = positiveInteger(
    options.timeoutMs ?? defaultApprovalTimeoutMs,
    "timeoutMs",
    "milliseconds",
    problems,
  );
  const pollIntervalMs =
    options.pollIntervalMs === undefined
      ? undefined
      : positiveInteger(options.pollIntervalMs, "pollIntervalMs", "milliseconds", problems);
  const maxPollIntervalMs =
    options.maxPollIntervalMs === undefined
      ? undefined
      : positiveInteger(options.maxPollIntervalMs, "maxPollIntervalMs", "milliseconds", problems);
  const pendingExpiresInSeconds = positiveInteger(
    options.pendingExpiresInSeconds ?? defaultPendingExpiresInSeconds,
    "pendingExpiresInSeconds",
    "seconds",
    problems,
  );
  const messageExpiresInSeconds = positiveInteger(
    options.messageExpiresInSeconds ?? Math.max(1, Math.ceil(timeoutMs / 1000)),
    "messageExpiresInSeconds",
    "seconds",
    problems,
  );
  if (logger !== undefined && (typeof logger !== "object" || logger === null)) {
    problems.push("logger must be a pino logger, or omitted");
  }
  if ((options as { onDecision?: unknown }).onDecision !== undefined) {
    problems.push(
      "onDecision is no longer an option: give the agent onApprovalDecided, which receives every decision's audit record once, whatever decided it (see the Migration section of docs/security.md)",
    );
  }
  const reminderBeforeExpiryMs =
    options.reminderBeforeExpiryMs === undefined
      ? undefined
      : positiveInteger(
          options.reminderBeforeExpiryMs,
          "reminderBeforeExpiryMs",
          "milliseconds",
          problems,
        );
  const { escalation } = options;
  // What a question offers is the approval policy's to say, not the channel's.
  for (const moved of ["allowEdits", "offerStanding"]) {
    if (moved in options) {
      problems.push(
        `${moved} is no longer an approver option: the rule that asks says what its question offers (edits: true, standing: { ... } on an "ask" rule of the agent's approvalPolicy, or approvalPolicy.edits)`,
      );
    }
  }
  const { secondSubscriptionLinkId } = options;
  if (secondSubscriptionLinkId !== undefined) {
    if (typeof secondSubscriptionLinkId !== "string" || secondSubscriptionLinkId.trim() === "") {
      problems.push(
        "secondSubscriptionLinkId must be the second approver's active consent link id, or omitted",
      );
    } else if (secondSubscriptionLinkId === subscriptionLinkId) {
      problems.push(
        "secondSubscriptionLinkId must be another link than subscriptionLinkId: the same person approving twice counts once",
      );
    }
  }
  if (escalation !== undefined) {
    if (typeof escalation !== "object" || escalation === null) {
      problems.push('escalation must be { subscriptionLinkId: "sl_...", afterMs: 120000 }');
    } else {
      if (
        typeof escalation.subscriptionLinkId !== "string" ||
        escalation.subscriptionLinkId.trim() === ""
      ) {
        problems.push(
          "escalation.subscriptionLinkId must be the second approver's active consent link id",
        );
      } else if (escalation.subscriptionLinkId === subscriptionLinkId) {
        problems.push("escalation.subscriptionLinkId must be another link than subscriptionLinkId");
      }
      positiveInteger(escalation.afterMs, "escalation.afterMs", "milliseconds", problems);
    }
  }
  if (problems.length > 0) {
    throw new ConfigurationError(problems.map((problem) => `MessagingApprover: ${problem}`));
  }
  return {
    client,
    subscriptionLinkId,
    timeoutMs,
    pollIntervalMs,
    maxPollIntervalMs,
    logger,
    messageExpiresInSeconds,
    pendingExpiresInSeconds,
    reminderBeforeExpiryMs,
    secondSubscriptionLinkId,
    escalation:
      escalation === undefined
        ? undefined
        : { subscriptionLinkId: escalation.subscriptionLinkId, afterMs: escalation.afterMs },
  };
}

function positiveInteger(value: unknown, name: string, unit: string, problems: string[]): number {
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  problems.push(`${name} must be a positive whole number of ${unit}, got ${String(value)}`);
  return 1;
}
