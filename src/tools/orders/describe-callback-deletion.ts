import { callbackMessageTypes } from "../../clients/orders/callback-message-types.js";
import { describeThrownBriefly } from "../describe-thrown-briefly.js";
import type { ActionDescription, ActionDetail, ToolContext } from "../tool.js";
import type { OrderToolsClient } from "./order-tools-client.js";

/**
 * What deleting these callbacks does, for the person asked to approve it:
 * each callback's URL under its message type, looked up in the current list
 * (an id that matches none is shown as unknown). When the list cannot be
 * read, the ids are shown with the reason. URLs and ids are shown as
 * values (quoted and escaped), never as the question's own words.
 */
export async function describeCallbackDeletion(
  client: Pick<OrderToolsClient, "listCallbacks">,
  callbackIds: readonly string[],
  context: ToolContext,
): Promise<ActionDescription> {
  const ids = uniqueIds(callbackIds);
  const count = ids.length;
  const summary =
    count === 1
      ? "Delete 1 callback: deliveries to this URL stop at once and queued events are discarded"
      : `Delete ${count} callbacks: deliveries to these URLs stop at once and queued events are discarded`;
  let details: ActionDetail[];
  try {
    const callbacks = await client.listCallbacks(
      { messageType: "all" },
      { signal: context.signal },
    );
    const byId = new Map(callbacks.map((callback) => [callback.id.toLowerCase(), callback]));
    details = ids.map((id): ActionDetail => {
      const callback = byId.get(id.toLowerCase());
      if (!callback) {
        return { label: "no callback has this id (nothing is deleted for it)", value: id };
      }
      const known = (callbackMessageTypes as readonly string[]).includes(callback.message_type);
      return known
        ? { label: `${callback.message_type} callback to`, value: callback.url }
        : { label: "callback to", value: `${callback.url} (type ${callback.message_type})` };
    });
  } catch (error) {
    if (context.signal.aborted) throw error;
    context.logger.warn(
      { error: describeThrownBriefly(error) },
      "could not list callbacks to describe the deletion",
    );
    details = [
      {
        label: "the callback list could not be read, so only the ids are known",
        value: describeThrownBriefly(error),
      },
      ...ids.map((id) => ({ label: "callback id", value: id })),
    ];
  }
  return { summary, details, irreversible: true };
}

function uniqueIds(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => {
    const key = id.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
