import { describeJsonValue, isJsonObject } from "../http/json-values.js";
import type { Route } from "../http/route.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";
import { toRfc3339 } from "../http/timestamps.js";
import { callbackMessageTypes, isCallbackMessageType } from "./message-types.js";
import type { CallbackRecord, OrdersService } from "./orders-state.js";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `GET`, `POST` and `DELETE /callbacks`. */
export function callbackRoutes(service: OrdersService): Route[] {
  return [
    {
      method: "GET",
      pattern: "/callbacks",
      handle: ({ query }) => {
        const messageType = query.get("message_type") ?? "all";
        if (messageType !== "all" && !isCallbackMessageType(messageType)) {
          throw new SimulatorHttpError(
            400,
            "invalid_message_type",
            `message_type "${messageType}" is not valid; use one of ${callbackMessageTypes.join(", ")} or all.`,
          );
        }
        const callbacks = service.state.callbacks.filter(
          (callback) => messageType === "all" || callback.message_type === messageType,
        );
        return { body: structuredClone(callbacks) };
      },
    },
    {
      method: "POST",
      pattern: "/callbacks",
      handle: ({ body }) => ({ body: createCallbacks(service, body) }),
    },
    {
      method: "DELETE",
      pattern: "/callbacks",
      handle: ({ body }) => ({ body: { deleted: deleteCallbacks(service, body) } }),
    },
  ];
}

/** Validates every item first and creates all or none, so a bad item loses nothing silently. */
function createCallbacks(service: OrdersService, body: unknown): CallbackRecord[] {
  if (!Array.isArray(body) || body.length === 0) {
    throw new SimulatorHttpError(
      400,
      "invalid_body",
      `Body must be a non-empty JSON array of {url, message_type, api_version?, token?}; got ${describeJsonValue(body)}.`,
    );
  }
  if (body.length > service.maxBatchSize) {
    throw new SimulatorHttpError(
      413,
      "batch_too_large",
      `At most ${service.maxBatchSize} callbacks per request; got ${body.length}. Split them into several requests.`,
    );
  }
  const problems: string[] = [];
  const seen = new Set(service.state.callbacks.map((callback) => callbackKey(callback)));
  const conflicts: string[] = [];
  body.forEach((item, index) => {
    const where = `[${index}]`;
    if (!isJsonObject(item)) {
      problems.push(`${where} must be an object, got ${describeJsonValue(item)}`);
      return;
    }
    if (!isHttpsUrl(item.url)) {
      problems.push(
        `${where}.url must be an absolute https:// URL, got ${describeJsonValue(item.url)}`,
      );
    }
    if (!isCallbackMessageType(item.message_type)) {
      problems.push(
        `${where}.message_type must be one of ${callbackMessageTypes.join(", ")}; got ${describeJsonValue(item.message_type)}`,
      );
    }
    if (item.api_version !== undefined && typeof item.api_version !== "string") {
      problems.push(`${where}.api_version must be a string when given`);
    }
    if (item.token !== undefined && (typeof item.token !== "string" || item.token === "")) {
      problems.push(`${where}.token must be a non-empty string when given`);
    }
    if (typeof item.url === "string" && typeof item.message_type === "string") {
      const key = `${item.message_type} ${item.url}`;
      if (seen.has(key)) conflicts.push(`${where} ${item.message_type} -> ${item.url}`);
      seen.add(key);
    }
  });
  if (problems.length > 0) {
    throw new SimulatorHttpError(
      400,
      "invalid_callbacks",
      `No callback was created: ${problems.join("; ")}.`,
    );
  }
  if (conflicts.length > 0) {
    throw new SimulatorHttpError(
      409,
      "duplicate_callback",
      `No callback was created: a callback with the same url and message_type already exists for ${conflicts.join("; ")}.`,
    );
  }
  const now = toRfc3339(service.now());
  const created = (body as Record<string, unknown>[]).map((item) => {
    const record: CallbackRecord = {
      id: service.newId(),
      url: String(item.url),
      message_type: item.message_type as CallbackRecord["message_type"],
      api_version: typeof item.api_version === "string" ? item.api_version : "1.0",
      created_at: now,
    };
    if (typeof item.token === "string") record.token = service.sealCallbackToken(item.token);
    return record;
  });
  service.state.callbacks.push(...created);
  return structuredClone(created);
}

/** One entry per id, in order: `success` when removed, else `failure` with the reason. */
function deleteCallbacks(service: OrdersService, body: unknown): Record<string, string>[] {
  const ids = readCallbackIds(body);
  if (ids.length > service.maxCallbackIds) {
    throw new SimulatorHttpError(
      413,
      "batch_too_large",
      `At most ${service.maxCallbackIds} callback ids per request; got ${ids.length}. Split them into several requests.`,
    );
  }
  const { state } = service;
  return ids.map((value) => {
    if (typeof value !== "string") {
      return failure(String(JSON.stringify(value)), "not a valid UUID");
    }
    if (!uuidPattern.test(value)) return failure(value, "not a valid UUID");
    const id = value.toLowerCase();
    const index = state.callbacks.findIndex((callback) => callback.id.toLowerCase() === id);
    if (index === -1) {
      return state.deletedCallbackIds.has(id)
        ? failure(value, `callback ${value} was already deleted`)
        : failure(value, `callback ${value} does not exist in this account`);
    }
    state.callbacks.splice(index, 1);
    state.deletedCallbackIds.add(id);
    return { id: value, status: "success" };
  });
}

function readCallbackIds(body: unknown): unknown[] {
  const ids = Array.isArray(body)
    ? body
    : isJsonObject(body) && Array.isArray(body.callback_ids)
      ? body.callback_ids
      : undefined;
  if (!ids || ids.length === 0) {
    throw new SimulatorHttpError(
      400,
      "invalid_body",
      `Body must be a non-empty JSON array of callback ids (or {"callback_ids": [...]}); got ${describeJsonValue(body)}.`,
    );
  }
  return ids;
}

function failure(id: string, message: string): Record<string, string> {
  return { id, status: "failure", error_message: message };
}

function callbackKey(callback: CallbackRecord): string {
  return `${callback.message_type} ${callback.url}`;
}

function isHttpsUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.hostname !== "";
  } catch {
    return false;
  }
}
