import { UnexpectedAnswerError } from "../../errors/unexpected-answer-error.js";
import type {
  AcceptedMessage,
  Interaction,
  InteractionAnswer,
  Message,
  MessageCancellation,
  MessageDeliveryError,
  MessagingCapabilities,
  SubscriptionLink,
} from "./messaging-types.js";
import { isPlainObject, WireRecord } from "./wire-record.js";

/**
 * The longest answer text read (a person's note, an `approve_some` list,
 * changed arguments as JSON): a longer one makes the interaction
 * unreadable before anything else looks at it. A note on the inbox page
 * holds at most 2,000 characters; changed arguments are bounded like the
 * model's own (1,000,000 characters).
 */
export const maximumAnswerTextLength = 1_000_000;

/** The request an answer belongs to, named in `UnexpectedAnswerError`. */
export interface AnswerSource {
  method: string;
  url: string;
}

/** Reads `{features: string[]}`; non-string entries are skipped. */
export function parseCapabilities(body: unknown, source: AnswerSource): MessagingCapabilities {
  return read(source, body, (record, problems) => {
    const features = record.raw("features");
    if (!Array.isArray(features)) {
      problems.push(`features is ${features === undefined ? "missing" : "not an array"}`);
      return undefined;
    }
    return {
      ...record.extras(),
      features: features.filter((feature): feature is string => typeof feature === "string"),
    };
  });
}

/** Reads `{subscription_link_id, url, state}`; `fallbackId` fills a missing id. */
export function parseSubscriptionLink(
  body: unknown,
  source: AnswerSource,
  fallbackId?: string,
  fallbackState?: string,
): SubscriptionLink {
  return read(source, body, (record) => {
    const subscriptionLinkId = record.id("subscription_link_id", fallbackId);
    const url = record.optionalString("url");
    const state = record.state("state", fallbackState);
    if (subscriptionLinkId === undefined || state === undefined) return undefined;
    return {
      ...record.extras(),
      subscriptionLinkId,
      ...(url !== undefined ? { url } : {}),
      state,
    };
  });
}

/** Reads the receipt `{message_id, interaction_id?, state}` of a sent message. */
export function parseAcceptedMessage(
  body: unknown,
  source: AnswerSource,
  idempotencyKey: string,
): AcceptedMessage {
  return read(source, body, (record) => {
    const messageId = record.id("message_id");
    const interactionId = record.optionalId("interaction_id");
    const state = record.state("state", "accepted");
    if (messageId === undefined || state === undefined) return undefined;
    return {
      ...record.extras(),
      messageId,
      ...(interactionId !== undefined ? { interactionId } : {}),
      state,
      idempotencyKey,
    };
  });
}

/** Reads `{message_id, interaction_id?, state, error?}`. */
export function parseMessage(body: unknown, source: AnswerSource, fallbackId: string): Message {
  return read(source, body, (record) => {
    const messageId = record.id("message_id", fallbackId);
    const interactionId = record.optionalId("interaction_id");
    const state = record.state("state");
    const error = readDeliveryError(record.raw("error"));
    if (state === undefined || messageId === undefined) return undefined;
    return {
      ...record.extras(),
      messageId,
      ...(interactionId !== undefined ? { interactionId } : {}),
      state,
      ...(error !== undefined ? { error } : {}),
    };
  });
}

/** Reads `{message_id, state}`; an empty body (e.g. 202 or 204) gives just the id. */
export function parseMessageCancellation(
  body: unknown,
  source: AnswerSource,
  fallbackId: string,
): MessageCancellation {
  if (body === undefined) return { messageId: fallbackId };
  return read(source, body, (record) => {
    const messageId = record.id("message_id", fallbackId);
    const rawState = record.raw("state");
    const hasState = rawState !== undefined && rawState !== null;
    const state = hasState ? record.state("state") : undefined;
    if (messageId === undefined || (hasState && state === undefined)) return undefined;
    return { ...record.extras(), messageId, ...(state !== undefined ? { state } : {}) };
  });
}

/** Reads `{interaction_id, message_id, state, answer?: {option_id, text?, answered_at}}`. */
export function parseInteraction(
  body: unknown,
  source: AnswerSource,
  fallbackId: string,
): Interaction {
  return read(source, body, (record, problems) => {
    const interactionId = record.id("interaction_id", fallbackId);
    const messageId = record.optionalId("message_id");
    const state = record.state("state");
    const rawAnswer = record.raw("answer");
    let answer: InteractionAnswer | undefined;
    if (rawAnswer !== undefined && rawAnswer !== null) {
      const answerRecord = WireRecord.from(rawAnswer, problems, "answer");
      if (answerRecord) answer = readAnswer(answerRecord);
      if (answer?.text !== undefined && answer.text.length > maximumAnswerTextLength) {
        problems.push(
          `answer.text is ${answer.text.length} characters long, more than the ${maximumAnswerTextLength} an answer may have (the person should answer again with a shorter note)`,
        );
      }
    }
    if (interactionId === undefined || state === undefined || problems.length > 0) return undefined;
    return {
      ...record.extras(),
      interactionId,
      ...(messageId !== undefined ? { messageId } : {}),
      state,
      ...(answer !== undefined ? { answer } : {}),
    };
  });
}

function readAnswer(record: WireRecord): InteractionAnswer {
  const optionId = record.optionalId("option_id");
  const text = record.optionalString("text");
  const answeredAt = record.optionalTimestamp("answered_at");
  return {
    ...record.extras(),
    ...(optionId !== undefined ? { optionId } : {}),
    ...(text !== undefined ? { text } : {}),
    ...(answeredAt !== undefined ? { answeredAt } : {}),
  };
}

function readDeliveryError(value: unknown): MessageDeliveryError | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return { message: value };
  if (!isPlainObject(value)) return { message: String(value) };
  const record = new WireRecord(value, []);
  const code = record.optionalId("code");
  const message = record.optionalString("message");
  return {
    ...record.extras(),
    ...(code !== undefined ? { code } : {}),
    ...(message !== undefined ? { message } : {}),
  };
}

function read<T>(
  source: AnswerSource,
  body: unknown,
  build: (record: WireRecord, problems: string[]) => T | undefined,
): T {
  const problems: string[] = [];
  const record = WireRecord.from(body, problems, "");
  const result = record ? build(record, problems) : undefined;
  if (result === undefined || problems.length > 0)
    throw new UnexpectedAnswerError({ ...source, service: "the messaging service" }, problems);
  return result;
}
