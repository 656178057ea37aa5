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
  results: Array<{ id: string; status: "success" | "failure"; error_message?: string }>;
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
    idempotent: true,
    describeAction: ({ callback_ids }, context) =>
      describeCallbackDeletion(client, callback_ids, context),
    execute: async ({ callback_ids }, { signal }) => {
      const outcomes = await client.deleteCallbacks(callback_ids, { signal });
      const results = outcomes.map((outcome) => ({
        id: outcome.id,
        status: outcome.status,
        ...(outcome.status === "failure" && typeof outcome.error_message === "string"
          ? { error_message: outcome.error_message }
          : {}),
      }));
      const deleted = results.filter((entry) => entry.status === "success").length;
      const result: DeleteCallbacksResult = {
        deleted,
        failed: results.length - deleted,
        results,
      };
      return scrubResult(result);
    },
  });
}
