import { type MessagingSimulator, startMessagingSimulator } from "switchyard-agents/simulators";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formToken, postInboxForm, questionHtml } from "./inbox-form.js";

let messaging: MessagingSimulator;
let clock: Date;

beforeEach(async () => {
  clock = new Date("2026-11-24T22:00:00.000Z");
  // Nobody answers but the person on the page; the page's clock is the test's.
  messaging = await startMessagingSimulator({
    answer: "never",
    deliveryStepMs: 1,
    now: () => clock,
  });
});
afterEach(() => messaging.close());

const options = [
  { id: "approve", label: "Approve" },
  { id: "deny", label: "Deny" },
  { id: "edit", label: "Approve with changes" },
];

async function ask(
  key: string,
  body: { options?: typeof options; metadata?: Record<string, unknown>; expires_in_s?: number },
): Promise<string> {
  const response = await fetch(`${messaging.url}/v1/messages`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${messaging.token}`,
      "content-type": "application/json",
      "idempotency-key": key,
    },
    body: JSON.stringify({
      subscription_link_id: messaging.approverLinkId,
      kind: "interaction",
      text: "Delete 2 callbacks?",
      options: body.options ?? options,
      ...body,
    }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { interaction_id: string }).interaction_id;
}

async function inboxHtml(): Promise<string> {
  return (await fetch(messaging.inboxUrl)).text();
}

/** The edit form's textarea content, as the browser would read it (HTML entities decoded). */
function editBox(html: string): string | undefined {
  const raw = /<textarea name="arguments"[^>]*>([^<]*)<\/textarea>/.exec(html)?.[1];
  return raw
    ?.replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");
}

function post(interactionId: string, fields: Record<string, string>) {
  return postInboxForm(messaging, interactionId, fields);
}

describe("the inbox page's edit form", () => {
  it("holds the arguments as JSON ready to change, and posting it approves with the changes", async () => {
    const args = { callback_ids: ["cb-1", "cb-2"] };
    const id = await ask("edit", { metadata: { arguments: args } });

    // The inbox leads to the question's own page, where the edit is written.
    const inbox = await inboxHtml();
    expect(inbox).not.toContain("<textarea");
    expect(inbox).toContain(
      `<a href="/inbox/${messaging.approverLinkId}/interactions/${id}">Open this question</a> to write a note, change the action before approving it.`,
    );
    const html = await questionHtml(messaging, id);
    // Its own form: the edit option is not among the plain buttons.
    expect(html.match(/value="edit"/g)).toHaveLength(1);
    expect(html).toContain("Change the action, then approve it");
    expect(JSON.parse(editBox(html)!)).toEqual(args);

    const edited = '{"callback_ids":["cb-1"]}';
    const answered = await post(id, {
      token: formToken(html),
      option_id: "edit",
      arguments: edited,
    });
    expect(answered.status).toBe(303);
    expect(messaging.interaction(id)).toMatchObject({
      state: "answered",
      answer: { option_id: "edit", text: edited },
    });
    expect(await inboxHtml()).toContain("Answered: Approve with changes [edit]");
  });

  it("escapes what the arguments hold, as HTML and as JSON, and they still read back whole", async () => {
    const hostile = {
      url: "https://a.example/\u202egpj.exe",
      note: "</textarea><script>alert(1)</script>\u200b",
    };
    const id = await ask("hostile", { metadata: { arguments: hostile } });

    const html = await questionHtml(messaging, id);
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("\u202e");
    expect(html).not.toContain("\u200b");
    const box = editBox(html)!;
    expect(box).toContain("\\u202e");
    expect(box).toContain("\\u200b");
    expect(JSON.parse(box)).toEqual(hostile);
  });

  it("refuses changed arguments that are not JSON, answering nothing, and says how to fix them", async () => {
    const id = await ask("typo", { metadata: { arguments: { callback_ids: ["cb-1"] } } });
    const html = await inboxHtml();

    const typo = await post(id, {
      token: formToken(html),
      option_id: "edit",
      arguments: "{callback_ids: [cb-1]",
    });
    expect(typo.status).toBe(400);
    // The page again, the form holding what the person typed, and why it was not sent.
    const again = await typo.text();
    expect(typo.headers.get("content-type")).toContain("text/html");
    expect(again).toMatch(
      /Nothing was answered: the changed arguments are not JSON \(.+\)\. Correct it and send it again\./,
    );
    expect(editBox(again)).toBe("{callback_ids: [cb-1]");
    expect(again).toContain('<details class="edit" open>');
    const empty = await post(id, { token: formToken(html), option_id: "edit", arguments: "  " });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain("Nothing was answered: the changed arguments are empty.");
    expect(messaging.interaction(id)?.state).toBe("pending");
  });

  it("shows the form again, saying what is wrong, for changed arguments the tool's parameters do not take", async () => {
    const id = await ask("invalid", {
      metadata: {
        arguments: { callback_ids: ["cb-1"] },
        arguments_schema: {
          type: "object",
          properties: { callback_ids: { type: "array", items: { type: "string" }, minItems: 1 } },
          required: ["callback_ids"],
          additionalProperties: false,
        },
      },
    });
    const html = await inboxHtml();
    const typed = '{"callback_ids": "cb-1"}';
    const invalid = await post(id, { token: formToken(html), option_id: "edit", arguments: typed });
    expect(invalid.status).toBe(400);
    const again = await invalid.text();
    expect(again).toContain(
      "Nothing was answered: the changed arguments do not fit the tool&#39;s parameters: callback_ids: must be array.",
    );
    expect(editBox(again)).toBe(typed);
    expect(again).not.toContain("Answered:");
    expect(messaging.interaction(id)?.state).toBe("pending");

    const valid = await post(id, {
      token: formToken(html),
      option_id: "edit",
      arguments: '{"callback_ids": ["cb-2\u202e"]}',
    });
    expect(valid.status).toBe(303);
    expect(messaging.interaction(id)?.answer?.text).toBe('{"callback_ids": ["cb-2\u202e"]}');
    // The answer shows as the arguments, JSON written once, not as a note.
    const answered = await inboxHtml();
    expect(answered).toContain("with these arguments");
    expect(answered).toContain(
      '<pre class="arguments">{\n  &quot;callback_ids&quot;: [\n    &quot;cb-2\\u202e&quot;\n  ]\n}</pre>',
    );
    expect(answered).not.toContain("Note:");
  });

  it("offers no edit form where the question offers no edit", async () => {
    await ask("plain", { options: options.slice(0, 2), metadata: { arguments: { a: 1 } } });
    const html = await inboxHtml();
    expect(html).not.toContain("Change the action");
    expect(html).not.toContain('name="arguments"');
  });
});

describe("the inbox page shows a question's expiry", () => {
  it("says when a pending question expires, then that it expired", async () => {
    const id = await ask("expiring", { expires_in_s: 600 });

    const pending = await inboxHtml();
    expect(pending).toContain(
      'Expires at <time datetime="2026-11-24T22:10:00Z">2026-11-24 22:10:00 UTC</time> (in 10 minutes)',
    );

    // Past its time, before the simulator's timer has expired it: shown as expired, and a
    // late answer from a page loaded earlier changes nothing.
    clock = new Date("2026-11-24T22:10:00.000Z");
    const late = await inboxHtml();
    expect(late).toContain("Expired at <time");
    expect(late).not.toContain('name="option_id"');
    const answered = await post(id, { token: formToken(pending), option_id: "approve" });
    expect(answered.status).toBe(303);
    expect(messaging.interaction(id)).toMatchObject({ state: "expired" });
    expect(messaging.interaction(id)).not.toHaveProperty("answer");

    const expired = await inboxHtml();
    expect(expired).toMatch(
      /<p class="expiry expired">Expired at <time[^>]*>2026-11-24 22:10:00 UTC/,
    );
    expect(expired).toContain("Expired before anyone answered.");
    expect(expired).not.toContain('name="option_id"');
  });

  it("says nothing of expiry for a question without one", async () => {
    await ask("forever", {});
    expect(await inboxHtml()).not.toContain('class="expiry');
  });
});
