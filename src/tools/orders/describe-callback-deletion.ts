import { describeThrownBriefly } from "../describe-thrown-briefly.js";
import type { ActionDescription, ToolContext } from "../tool.js";
import type { OrderToolsClient } from "./order-tools-client.js";

/**
 * What deleting these callbacks does, for the person asked to approve it:
 * each callback's URL and message type, looked up in the current list
 * (`unknown callback <id>` for an id that matches none). When the list
 * cannot be read, the ids are shown with the reason.
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
  let details: string[];
  try {
    const callbacks = await client.listCallbacks(
      { messageType: "all" },
      { signal: context.signal },
    );
    const byId = new Map(callbacks.map((callback) => [callback.id.toLowerCase(), callback]));
    details = ids.map((id) => {
      const callback = byId.get(id.toLowerCase());
      return callback ? `${callback.url} (${callback.message_type})` : `unknown callback ${id}`;
    });
  } catch (error) {
    if (context.signal.aborted) throw error;
    context.logger.warn(
      { error: describeThrownBriefly(error) },
      "could not list callbacks to describe the deletion",
    );
    details = [
      `(the callback list could not be read: ${describeThrownBriefly(error)}; only the ids are known)`,
      ...ids.map((id) => `callback ${id}`),
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
