import { callbackHoldTypes } from "../../clients/orders/callback-hold-types.js";
import { defineTool } from "../define-tool.js";
import { scrubResult } from "../scrub-result.js";
import type { NeedsApproval, Tool } from "../tool.js";
import type { OrderToolArguments } from "./order-tool-names.js";
import { orderToolSchemas } from "./order-tool-schemas.js";
import type { OrderToolsClient } from "./order-tools-client.js";

/** Result of the hold tools: the message types held now. */
export interface CallbackHoldsResult {
  holds: string[];
}

const holdTypesText = callbackHoldTypes.join(", ");

/** list_callback_holds: the message types whose delivery is held. */
export function listCallbackHoldsTool(
  client: OrderToolsClient,
  needsApproval: NeedsApproval<OrderToolArguments["list_callback_holds"]>,
): Tool<OrderToolArguments["list_callback_holds"], CallbackHoldsResult> {
  return defineTool({
    name: "list_callback_holds",
    description: `Lists the message types whose callback delivery is currently held. Returns {holds: string[]}, each one of ${holdTypesText}. Read-only; takes no arguments.`,
    parameters: orderToolSchemas().listCallbackHoldsParameters,
    needsApproval,
    readOnly: true,
    execute: async (_args, { signal }) =>
      scrubResult({ holds: await client.listCallbackHolds({ signal }) }),
  });
}

/** hold_callbacks: holds delivery of some message types; needs approval by default. */
export function holdCallbacksTool(
  client: OrderToolsClient,
  needsApproval: NeedsApproval<OrderToolArguments["hold_callbacks"]>,
): Tool<OrderToolArguments["hold_callbacks"], CallbackHoldsResult> {
  return defineTool({
    name: "hold_callbacks",
    description: `Holds callback delivery for message types, given as hold types: ${holdTypesText} (a different list from the callback message types). Events of a held type that occur during the hold are never delivered, not even after the hold is released: data is lost, so a human is asked to approve the call first. Returns {holds: string[]}, the holds now active. If the result has error "approval_refused", nothing was held: tell the user the reason and do not retry the same call unless they ask.`,
    parameters: orderToolSchemas().holdCallbacksParameters,
    needsApproval,
    destructive: true,
    idempotent: true,
    describeAction: ({ message_types }) => ({
      summary: `Hold callback delivery of ${message_types.length === 1 ? "1 message type" : `${message_types.length} message types`}: events of ${message_types.length === 1 ? "this type" : "these types"} during the hold are never delivered, not even after the hold is released`,
      details: message_types.map((type) => ({
        label: `${type}: events stop being delivered and are lost`,
      })),
      irreversible: true,
    }),
    execute: async ({ message_types }, { signal }) =>
      scrubResult({ holds: await client.holdCallbacks(message_types, { signal }) }),
    // Holding a type already held changes nothing: the holds in place say what took effect.
    reconcile: async ({ message_types }, { signal }) => {
      const active = new Set(await client.listCallbackHolds({ signal }));
      const missing = message_types.filter((type) => !active.has(type));
      const holds =
        missing.length > 0 ? await client.holdCallbacks(missing, { signal }) : [...active];
      return {
        result: scrubResult({ holds }),
        summary: `${message_types.length - missing.length} of the ${message_types.length} holds were already in place; ${missing.length} held now`,
      };
    },
  });
}

/** release_callback_holds: resumes delivery of held message types. */
export function releaseCallbackHoldsTool(
  client: OrderToolsClient,
  needsApproval: NeedsApproval<OrderToolArguments["release_callback_holds"]>,
): Tool<OrderToolArguments["release_callback_holds"], CallbackHoldsResult> {
  return defineTool({
    name: "release_callback_holds",
    description: `Releases holds so callback delivery of those message types resumes. Takes hold types: ${holdTypesText}. Events that occurred during the hold are not resent. Returns {holds: string[]}, the holds still active.`,
    parameters: orderToolSchemas().releaseCallbackHoldsParameters,
    needsApproval,
    idempotent: true,
    execute: async ({ message_types }, { signal }) =>
      scrubResult({ holds: await client.releaseCallbackHolds(message_types, { signal }) }),
    reconcile: async ({ message_types }, { signal }) => {
      const active = new Set(await client.listCallbackHolds({ signal }));
      const held = message_types.filter((type) => active.has(type));
      const holds =
        held.length > 0 ? await client.releaseCallbackHolds(held, { signal }) : [...active];
      return {
        result: scrubResult({ holds }),
        summary: `${message_types.length - held.length} of the ${message_types.length} holds were already released; ${held.length} released now`,
      };
    },
  });
}
