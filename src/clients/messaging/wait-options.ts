import { ConfigurationError } from "../../errors/configuration-error.js";
import type { Interaction, SubscriptionLink } from "./messaging-types.js";
import { isPlainObject } from "./wire-record.js";

/** How long and how often `waitForInteraction` / `waitForSubscription` poll. */
export interface WaitOptions {
  /** Total time to wait, in milliseconds; no poll or pause runs past it. */
  timeoutMs: number;
  /** Stops the wait; the call then throws `AbortedError`. */
  signal?: AbortSignal;
  /** Pause before the second poll. @default 250 */
  pollIntervalMs?: number;
  /** Longest pause between polls. @default 5000 */
  maxPollIntervalMs?: number;
  /** Each pause is the previous one times this. @default 1.5 */
  backoffFactor?: number;
  /**
   * Polls in a row that may fail with a transient error (5xx, 408, 409, 429
   * after the client's own retries, a connection failure or a per-request
   * timeout) before the wait gives up with `{ status: "error" }`. Any other
   * failure (401, 404, an unreadable answer) ends the wait at once.
   * @default 3
   */
  maxConsecutiveErrors?: number;
}

/**
 * How `waitForInteraction` ended. It never throws for an outcome: only an
 * abort (`AbortedError`) or bad options (`ConfigurationError`) throw.
 * - `answered`: a person answered; read `interaction.answer`.
 * - `expired`, `canceled`, `failed`: it ended without an answer.
 * - `timeout`: still pending when `timeoutMs` ran out (the message is not cancelled).
 * - `error`: the service kept failing (see `WaitOptions.maxConsecutiveErrors`),
 *   was still failing at the deadline, or refused the read (e.g. 404).
 */
export type InteractionOutcome =
  | { status: "answered"; interaction: Interaction }
  | { status: "expired" | "canceled" | "failed"; interaction: Interaction }
  | { status: "timeout"; lastInteraction?: Interaction }
  | { status: "error"; error: Error; lastInteraction?: Interaction };

/**
 * How `waitForSubscription` ended: the link became `active`, ended unused
 * (`expired`, `revoked`), was still pending at the deadline (`timeout`), or
 * could not be read (`error`, with the same rules as `InteractionOutcome`).
 */
export type SubscriptionLinkOutcome =
  | { status: "active"; link: SubscriptionLink }
  | { status: "expired" | "revoked"; link: SubscriptionLink }
  | { status: "timeout"; lastLink?: SubscriptionLink }
  | { status: "error"; error: Error; lastLink?: SubscriptionLink };

/** Wait options with every default filled in. */
export interface PollSchedule {
  timeoutMs: number;
  pollIntervalMs: number;
  maxPollIntervalMs: number;
  backoffFactor: number;
  maxConsecutiveErrors: number;
}

/** Checks wait options, naming every bad one, and fills in the defaults. */
export function resolvePollSchedule(operation: string, options: WaitOptions): PollSchedule {
  if (!isPlainObject(options)) {
    throw new ConfigurationError(
      `${operation}: options with timeoutMs are required, e.g. { timeoutMs: 600000 }`,
    );
  }
  const problems: string[] = [];
  const integer = (value: unknown, name: string, minimum: number): number => {
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= minimum) return value;
    problems.push(
      `${operation}: ${name} must be a whole number of milliseconds of at least ${minimum}, got ${String(value)}`,
    );
    return minimum;
  };
  const timeoutMs = integer(options.timeoutMs, "timeoutMs", 1);
  const pollIntervalMs = integer(options.pollIntervalMs ?? 250, "pollIntervalMs", 1);
  const maxPollIntervalMs = integer(
    options.maxPollIntervalMs ?? Math.max(5_000, pollIntervalMs),
    "maxPollIntervalMs",
    pollIntervalMs,
  );
  const maxConsecutiveErrors = integer(
    options.maxConsecutiveErrors ?? 3,
    "maxConsecutiveErrors",
    1,
  );
  const backoffFactor = options.backoffFactor ?? 1.5;
  if (typeof backoffFactor !== "number" || !Number.isFinite(backoffFactor) || backoffFactor < 1) {
    problems.push(
      `${operation}: backoffFactor must be a number of at least 1, got ${String(backoffFactor)}`,
    );
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    problems.push(`${operation}: signal must be an AbortSignal`);
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return { timeoutMs, pollIntervalMs, maxPollIntervalMs, backoffFactor, maxConsecutiveErrors };
}
