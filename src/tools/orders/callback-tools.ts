import { callbackMessageTypes } from "../../clients/orders/callback-message-types.js";
import { defineTool } from "../define-tool.js";
import { scrubResult } from "../scrub-result.js";
import type { NeedsApproval, Tool } from "../tool.js";
import { trimList } from "../trim-list.js";
import { type CallbackView, toCallbackView } from "./callback-view.js";
import { describeCallbackDeletion } from "./describe-callback-deletion.js";
import type { OrderToolArguments } from "./order-tool-names.js";
import {
  maximumCallbackIdsPerCall,
  maximumListedCallbacks,
  maximumNewCallbacksPerCall,
  orderToolSchemas,
} from "./order-tool-schemas.js";
import type { OrderToolsClient } from "./order-tools-client.js";

/** Result of list_callbacks. */
export interface ListCallbacksResult {
  callbacks: CallbackView[];
  /** Callbacks the service returned. */
  total: number;
  /** Callbacks in `callbacks` (at most 50). */
  shown: number;
  /** Callbacks left out of `callbacks`. */
  omitted: number;
  /** How to see the rest, present when some were left out. */
  note?: string;
}

/** Result of create_callbacks. */
export interface CreateCallbacksResult {
  created: CallbackView[];
  count: number;
}

/** Result of delete_callbacks: one entry per id, in the order given. */
export interface DeleteCallbacksResult {
  deleted: number;
  failed: number;
  results: Array<{
    id: string;
    status: "success" | "failure";
    error_message?: string;
    /**
     * Only when an interrupted call was reconciled: `already_gone`, the
     * service no longer lists the id (the interrupted call deleted it, or it
     * never existed); `deleted_now`, it was still there and was deleted then.
     */
    reconciled?: "already_gone" | "deleted_now";
  }>;
}

/** list_callbacks: the registered callbacks, trimmed to 50. */
export function listCallbacksTool(
  client: OrderToolsClient,
  needsApproval: NeedsApproval<OrderToolArguments["list_callbacks"]>,
): Tool<OrderToolArguments["list_callbacks"], ListCallbacksResult> {
  return defineTool({
    name: "list_callbacks",
    description: `Lists the registered callbacks (webhook subscriptions) of the order service: for each its id, url, message_type, api_version and created_at. Filter with message_type (one of ${callbackMessageTypes.join(", ")}, or "all", the default). Returns {callbacks, total, shown, omitted}: at most ${maximumListedCallbacks} callbacks are shown; when omitted > 0, list again per message_type to see the rest. Read-only. Use it to find callback ids before delete_callbacks.`,
    parameters: orderToolSchemas().listCallbacksParameters,
    needsApproval,
    readOnly: true,
    execute: async ({ message_type }, { signal }) => {
      const callbacks = await client.listCallbacks({ messageType: message_type }, { signal });
      const { shown, omitted } = trimList(callbacks, maximumListedCallbacks);
      const result: ListCallbacksResult = {
        callbacks: shown.map(toCallbackView),
        total: callbacks.length,
        shown: shown.length,
        omitted,
        ...(omitted > 0
          ? {
              note: `Only the first ${maximumListedCallbacks} of ${callbacks.length} callbacks are shown; call list_callbacks with one message_type at a time to see the others.`,
            }
          : {}),
      };
      return scrubResult(result);
    },
  });
}

/** create_callbacks: registers callbacks, all or none; needs approval by default (unless the hosts are allowed). */
export function createCallbacksTool(
  client: OrderToolsClient,
  needsApproval: NeedsApproval<OrderToolArguments["create_callbacks"]>,
): Tool<OrderToolArguments["create_callbacks"], CreateCallbacksResult> {
  return defineTool({
    name: "create_callbacks",
    description: `Registers callbacks (webhook subscriptions): each {url, message_type, api_version?}. url must be an absolute https address; message_type one of ${callbackMessageTypes.join(", ")} (hold types such as shipmentEvent are not callback types). 1 to ${maximumNewCallbacksPerCall} per call; the service registers all or none, and refuses a url already registered for the same message_type. A callback sends every future event of its type, with the order data, to its url, so a human is asked to approve the call first (unless its hosts are ones the application trusts). Returns {created: [{id, url, message_type, api_version, created_at}], count}. If it fails, list_callbacks before trying again: some may have been registered. If the result has error "approval_refused", nothing was registered: tell the user the reason and do not retry the same call unless they ask.`,
    parameters: orderToolSchemas().createCallbacksParameters,
    needsApproval,
    describeAction: ({ callbacks }) => ({
      summary:
        callbacks.length === 1
          ? "Register 1 callback: every future event of its type, with the order data, is sent to this address"
          : `Register ${callbacks.length} callbacks: every future event of their types, with the order data, is sent to these addresses`,
      details: callbacks.flatMap((callback) => [
        { label: `${callback.message_type} events to`, value: callback.url },
        ...(callback.api_version !== undefined
          ? [{ label: "  in API version", value: callback.api_version }]
          : []),
      ]),
      irreversible: true,
    }),
    execute: async ({ callbacks }, { signal }) => {
      const created = await client.createCallbacks(
        callbacks.map((callback) => ({
          url: callback.url,
          message_type: callback.message_type,
          ...(callback.api_version !== undefined ? { api_version: callback.api_version } : {}),
        })),
        { signal },
      );
      const result: CreateCallbacksResult = {
        created: created.map(toCallbackView),
        count: created.length,
      };
      return scrubResult(result);
    },
    // The service refuses a url registered twice for one message type, so the list says which took effect.
    reconcile: async ({ callbacks }, { signal }) => {
      const listed = await client.listCallbacks({ messageType: "all" }, { signal });
      // The same url, type and (when the approved call named one) API version.
      const sameCallback = (
        entry: { url: string; message_type: string; api_version?: string | undefined },
        callback: { url: string; message_type: string; api_version?: string | undefined },
      ) =>
        entry.url === callback.url &&
        entry.message_type === callback.message_type &&
        (callback.api_version === undefined || entry.api_version === callback.api_version);
      const registered = (callback: (typeof callbacks)[number]) =>
        listed.find((entry) => sameCallback(entry, callback));
      const missing = callbacks.filter((callback) => registered(callback) === undefined);
      const createdNow =
        missing.length > 0
          ? await client.createCallbacks(
              missing.map((callback) => ({
                url: callback.url,
                message_type: callback.message_type,
                ...(callback.api_version !== undefined
                  ? { api_version: callback.api_version }
                  : {}),
              })),
              { signal },
            )
          : [];
      const created = callbacks.flatMap((callback) => {
        const found =
          registered(callback) ?? createdNow.find((entry) => sameCallback(entry, callback));
        return found ? [toCallbackView(found)] : [];
      });
      const result: CreateCallbacksResult = { created, count: created.length };
      return {
        result: scrubResult(result),
        summary: `${callbacks.length - missing.length} of the ${callbacks.length} callbacks were already registered; ${missing.length} registered now`,
      };
    },
  });
}

/** delete_callbacks: deletes callbacks by id; needs approval by default. */
export function deleteCallbacksTool(
  client: OrderToolsClient,
  needsApproval: NeedsApproval<OrderToolArguments["delete_callbacks"]>,
): Tool<OrderToolArguments["delete_callbacks"], DeleteCallbacksResult> {
  return defineTool({
    name: "delete_callbacks",
    description: `Deletes callbacks by id (UUIDs exactly as list_callbacks returns them, 1 to ${maximumCallbackIdsPerCall} per call). Deliveries to their URLs stop at once and queued events are discarded: this cannot be undone, so a human is asked to approve the call first. Returns {deleted, failed, results: [{id, status: "success"|"failure", error_message?}]}, one result per id in the order given; a failed id does not stop the others. If the result has error "approval_refused", nothing was deleted: tell the user the reason and do not retry the same call unless they ask.`,
    parameters: orderToolSchemas().deleteCallbacksParameters,
    needsApproval,
    destructive: true,
    idempotent: true,
    describeAction: ({ callback_ids }, context) =>
      describeCallbackDeletion(client, callback_ids, context),
    execute: async ({ callback_ids }, { signal }) =>
      deletionResult(await client.deleteCallbacks(callback_ids, { signal })),
    // Deletion by id is idempotent: the ids the service still lists are deleted now, the others are gone.
    reconcile: async ({ callback_ids }, { signal }) => {
      const listed = new Set(
        (await client.listCallbacks({ messageType: "all" }, { signal })).map(({ id }) => id),
      );
      const remaining = callback_ids.filter((id) => listed.has(id));
      const outcomes = new Map(
        (remaining.length > 0 ? await client.deleteCallbacks(remaining, { signal }) : []).map(
          (outcome) => [outcome.id, outcome] as const,
        ),
      );
      const result = deletionResult(
        callback_ids.map((id) => outcomes.get(id) ?? { id, status: "success" as const }),
        (id) => (listed.has(id) ? "deleted_now" : "already_gone"),
      );
      const gone = callback_ids.length - remaining.length;
      return {
        result,
        summary: `${gone} of the ${callback_ids.length} callbacks were already gone; ${remaining.length} were still there and were deleted now`,
      };
    },
  });
}

/** The tool's result from the service's per-id outcomes, each marked as reconciled when `reconciled` says. */
function deletionResult(
  outcomes: ReadonlyArray<{ id: string; status: "success" | "failure"; error_message?: unknown }>,
  reconciled?: (id: string) => "already_gone" | "deleted_now",
): DeleteCallbacksResult {
  const results = outcomes.map((outcome) => ({
    id: outcome.id,
    status: outcome.status,
    ...(outcome.status === "failure" && typeof outcome.error_message === "string"
      ? { error_message: outcome.error_message }
      : {}),
    ...(reconciled ? { reconciled: reconciled(outcome.id) } : {}),
  }));
  const deleted = results.filter((entry) => entry.status === "success").length;
  return scrubResult({ deleted, failed: results.length - deleted, results });
}
