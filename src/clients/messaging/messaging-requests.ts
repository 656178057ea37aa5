import { ConfigurationError } from "../../errors/configuration-error.js";
import type { RequestOptions } from "../request-options.js";
import { isPlainObject } from "./wire-record.js";

/**
 * The longest message `text` this library sends (and its messaging simulator
 * takes), in UTF-16 code units. The service's own limit is not documented;
 * chat channels cut or refuse longer messages, so an approval question
 * longer than this shows its first part and says so.
 */
export const maximumMessageTextLength = 4000;

/**
 * The answer of an approval question that approves a changed action
 * ("Approve with changes"): its text is the whole new arguments as JSON. A
 * question offering it carries the arguments it asks about in
 * `metadata.arguments`, so a channel that can (the messaging simulator's
 * inbox page and terminal) shows them ready to change, and the JSON Schema
 * they must meet in `metadata.arguments_schema`, so it can check a change
 * where the person types it.
 */
export const editAnswer = {
  optionId: "edit",
  label: "Approve with changes",
  metadataKey: "arguments",
  schemaMetadataKey: "arguments_schema",
} as const;

/** What `createSubscriptionLink` sends. */
export interface CreateSubscriptionLinkInput {
  /** Shown to the subscriber or kept for your records, e.g. `ops on-call`. */
  label?: string;
  /** How long the link stays usable; a positive whole number of seconds. */
  expiresInSeconds?: number;
}

/** One answer a person can pick, e.g. `{ id: "approve", label: "Approve" }`. */
export interface MessageOption {
  id: string;
  label: string;
}

/** A one-way notice, or a question that waits for an answer. */
export type MessageKind = "notification" | "interaction";

/** What `sendMessage` sends. */
export interface SendMessageInput {
  /** The consent link of the subscriber to reach (it must be `active`). */
  subscriptionLinkId: string;
  kind: MessageKind;
  /** What the subscriber reads; must not be empty. */
  text: string;
  /** The answers offered; required for an interaction (at least two, ids unique), not allowed for a notification. */
  options?: readonly MessageOption[];
  /** After this many seconds undelivered or unanswered, the message expires. */
  expiresInSeconds?: number;
  /** Your own data kept with the message, e.g. `{ fingerprint }`; a JSON object. */
  metadata?: Record<string, unknown>;
}

/** Per-call options of `sendMessage`. */
export interface SendMessageOptions extends RequestOptions {
  /**
   * The `Idempotency-Key` to send. Pass the same key to send the same logical
   * message again (after a crash, say) without a second delivery.
   * @default a fresh `crypto.randomUUID()` per call, reused on every retry
   */
  idempotencyKey?: string;
}

/** Request body of `POST /v1/subscription-links`. */
export interface SubscriptionLinkBody {
  label?: string;
  expires_in_s?: number;
}

/** Request body of `POST /v1/messages`. */
export interface SendMessageBody {
  subscription_link_id: string;
  kind: MessageKind;
  text: string;
  options?: MessageOption[];
  expires_in_s?: number;
  metadata?: Record<string, unknown>;
}

/** Checks a `createSubscriptionLink` input and gives the wire body. */
export function buildSubscriptionLinkBody(
  input: CreateSubscriptionLinkInput | undefined,
): SubscriptionLinkBody {
  const problems: string[] = [];
  if (input !== undefined && !isPlainObject(input as unknown)) {
    throw new ConfigurationError("createSubscriptionLink: the input must be an object or omitted");
  }
  const body: SubscriptionLinkBody = {};
  if (input?.label !== undefined) {
    if (typeof input.label !== "string" || input.label.trim() === "") {
      problems.push("createSubscriptionLink: label must be a non-empty string, or omitted");
    } else body.label = input.label;
  }
  if (input?.expiresInSeconds !== undefined) {
    const problem = checkPositiveInteger(input.expiresInSeconds, "expiresInSeconds");
    if (problem) problems.push(`createSubscriptionLink: ${problem}`);
    else body.expires_in_s = input.expiresInSeconds;
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return body;
}

/** Checks a `sendMessage` input, reporting every problem at once, and gives the wire body. */
export function buildSendMessageBody(input: SendMessageInput): SendMessageBody {
  if (!isPlainObject(input)) {
    throw new ConfigurationError(
      "sendMessage: the input must be an object such as { subscriptionLinkId, kind, text }",
    );
  }
  const problems: string[] = [];
  const { subscriptionLinkId, kind, text, options, expiresInSeconds, metadata } = input;
  if (typeof subscriptionLinkId !== "string" || subscriptionLinkId.trim() === "") {
    problems.push("subscriptionLinkId must be the non-empty id of an active subscription link");
  }
  if (kind !== "notification" && kind !== "interaction") {
    problems.push(
      `kind ${JSON.stringify(kind)} is not supported: use "notification" or "interaction"`,
    );
  }
  if (typeof text !== "string" || text.trim() === "") {
    problems.push("text must be a non-empty string: write what the subscriber should read");
  } else if (text.length > maximumMessageTextLength) {
    problems.push(
      `text is ${text.length} characters long, more than the ${maximumMessageTextLength} a message may hold: shorten it or send it in parts`,
    );
  }
  if (kind === "interaction") problems.push(...checkOptions(options));
  if (kind === "notification" && options !== undefined) {
    problems.push('options are only for kind "interaction": drop them or send an interaction');
  }
  if (expiresInSeconds !== undefined) {
    const problem = checkPositiveInteger(expiresInSeconds, "expiresInSeconds");
    if (problem) problems.push(problem);
  }
  if (metadata !== undefined) problems.push(...checkMetadata(metadata));
  if (problems.length > 0) {
    throw new ConfigurationError(problems.map((problem) => `sendMessage: ${problem}`));
  }
  return {
    subscription_link_id: subscriptionLinkId,
    kind,
    text,
    ...(options !== undefined
      ? { options: options.map((option) => ({ id: option.id, label: option.label })) }
      : {}),
    ...(expiresInSeconds !== undefined ? { expires_in_s: expiresInSeconds } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
  };
}

const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

/**
 * Checks per-call options (and an idempotency key when the call takes one),
 * so a bad value fails with its name instead of deep inside fetch.
 */
export function checkRequestOptions(
  operation: string,
  options: SendMessageOptions | undefined,
): void {
  if (options === undefined) return;
  const problems: string[] = [];
  if (!isPlainObject(options)) {
    throw new ConfigurationError(`${operation}: request options must be an object or omitted`);
  }
  if (options.timeoutMs !== undefined) {
    const problem = checkPositiveInteger(options.timeoutMs, "timeoutMs");
    if (problem) problems.push(`${operation}: ${problem}`);
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    problems.push(`${operation}: signal must be an AbortSignal`);
  }
  if (options.idempotencyKey !== undefined) {
    if (
      typeof options.idempotencyKey !== "string" ||
      !idempotencyKeyPattern.test(options.idempotencyKey)
    ) {
      problems.push(
        `${operation}: idempotencyKey must be 1 to 255 visible ASCII characters without spaces, e.g. a UUID`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
}

function checkOptions(options: readonly MessageOption[] | undefined): string[] {
  if (!Array.isArray(options) || options.length < 2) {
    return [
      'an interaction needs options with at least two answers, e.g. [{ id: "approve", label: "Approve" }, { id: "deny", label: "Deny" }]',
    ];
  }
  const problems: string[] = [];
  const seen = new Set<string>();
  options.forEach((option: unknown, index) => {
    if (!isPlainObject(option)) {
      problems.push(`options[${index}] must be an object { id, label }`);
      return;
    }
    const { id, label } = option;
    if (typeof id !== "string" || id.trim() === "") {
      problems.push(`options[${index}].id must be a non-empty string`);
    } else if (seen.has(id)) {
      problems.push(`options[${index}].id "${id}" is used twice: option ids must be unique`);
    } else seen.add(id);
    if (typeof label !== "string" || label.trim() === "") {
      problems.push(`options[${index}].label must be a non-empty string`);
    }
  });
  return problems;
}

function checkMetadata(metadata: unknown): string[] {
  if (!isPlainObject(metadata)) return ["metadata must be a JSON object, or omitted"];
  try {
    JSON.stringify(metadata);
    return [];
  } catch (error) {
    return [
      `metadata cannot be sent as JSON (${error instanceof Error ? error.message : String(error)})`,
    ];
  }
}

function checkPositiveInteger(value: unknown, name: string): string | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return undefined;
  const shown = typeof value === "string" ? JSON.stringify(value) : String(value);
  return `${name} must be a positive whole number, got ${shown}`;
}
