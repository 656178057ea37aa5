import type { MessagingSimulator } from "switchyard-agents/simulators";

/** The token an inbox page's forms carry. */
export function formToken(html: string): string {
  return /name="token" value="([^"]+)"/.exec(html)![1]!;
}

/**
 * Posts an inbox page's form for `interactionId` as a browser on the page
 * would: with the page's origin, unless `headers` say otherwise (`undefined`
 * leaves a header out).
 */
export function postInboxForm(
  messaging: MessagingSimulator,
  interactionId: string,
  fields: Record<string, string> | Array<[string, string]>,
  headers: Record<string, string | undefined> = {},
): Promise<Response> {
  const sent = Object.entries({
    "content-type": "application/x-www-form-urlencoded",
    origin: messaging.url,
    ...headers,
  }).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return fetch(`${messaging.inboxUrl}/interactions/${interactionId}`, {
    method: "POST",
    headers: sent,
    body: new URLSearchParams(fields),
    redirect: "manual",
  });
}

/** The page of one question of the inbox, where its note, edit and choice of actions are written. */
export async function questionHtml(
  messaging: MessagingSimulator,
  interactionId: string,
): Promise<string> {
  return (await fetch(`${messaging.inboxUrl}/interactions/${interactionId}`)).text();
}
