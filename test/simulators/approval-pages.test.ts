import { type MessagingSimulator, startMessagingSimulator } from "switchyard-agents/simulators";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formToken, postInboxForm } from "./inbox-form.js";

let messaging: MessagingSimulator;
beforeEach(async () => {
  // Nobody answers but the person on the page.
  messaging = await startMessagingSimulator({ answer: "never", deliveryStepMs: 1 });
});
afterEach(() => messaging.close());

async function ask(
  text: string,
  key: string,
  options = ["approve", "deny"],
  metadata?: Record<string, unknown>,
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
      text,
      options: options.map((id) => ({ id, label: id[0]!.toUpperCase() + id.slice(1) })),
      ...(metadata ? { metadata } : {}),
    }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { interaction_id: string }).interaction_id;
}

async function inbox(): Promise<{ response: Response; html: string }> {
  const response = await fetch(messaging.inboxUrl);
  return { response, html: await response.text() };
}

/** Posts the inbox's form as a browser on the page would: with the page's origin, unless `headers` say otherwise. */
function post(
  interactionId: string,
  fields: Record<string, string>,
  headers: Record<string, string | undefined> = {},
) {
  return postInboxForm(messaging, interactionId, fields, headers);
}

describe("the messaging simulator's inbox page", () => {
  it("shows each question with its options as buttons, then its outcome once answered", async () => {
    const first = await ask("Delete 4 callbacks?", "first");
    const second = await ask("Hold orderEvent callbacks?", "second");

    const { response, html } = await inbox();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toContain("form-action 'self'");
    // Newest first, each answerable while pending; nothing to type on the inbox, so it
    // reloads itself while questions are open, and one answered elsewhere shows its outcome.
    expect(html.indexOf(second)).toBeLessThan(html.indexOf(first));
    expect(html.match(/<button type="submit" name="option_id" value="approve"/g)).toHaveLength(2);
    expect(html).toContain('<meta http-equiv="refresh" content="5">');
    expect(html).not.toContain("<textarea");

    const answered = await post(first, {
      token: formToken(html),
      option_id: "deny",
      note: "  not before Monday ",
    });
    expect(answered.status).toBe(303);
    expect(answered.headers.get("location")).toBe(
      `/inbox/${messaging.approverLinkId}#interaction-${first}`,
    );
    expect(messaging.interaction(first)).toMatchObject({
      state: "answered",
      answer: { option_id: "deny", text: "not before Monday" },
    });
    const after = (await inbox()).html;
    expect(after).toMatch(/Answered: Deny \[deny\] at [^<]+<br>Note: not before Monday/);
    expect(after.match(/name="option_id"/g)).toHaveLength(2);
  });

  it("shows untrusted text escaped, as at the terminal, and never as HTML", async () => {
    await ask(
      'Delete <img src=x onerror="alert(1)"> at https://a.example/\u202egpj.exe\x1b[2K\nline two',
      "hostile",
    );

    const { html } = await inbox();
    expect(html).toContain(
      'Delete &lt;img src=x onerror=&quot;alert(1)&quot;&gt; at <span class="url">https://<span class="host">a.example</span>/<wbr>\\u202egpj.exe\\x1b[2K</span>\nline two',
    );
    expect(html).not.toContain("<img");
    expect(html).not.toContain("\u202e");
    expect(html).not.toContain("\x1b");
  });

  it("keeps each URL's host whole and lets its path wrap only after a slash", async () => {
    await ask(
      'Delete 1 callback\n- callback to: "https://hooks.old-warehouse-example-with-a-long-name.example:8443/acme/orders/v2?x=1"',
      "url",
    );

    const { html } = await inbox();
    expect(html).toContain(
      '&quot;<span class="url">https://<span class="host">hooks.old-warehouse-example-with-a-long-name.example:8443</span>/<wbr>acme/<wbr>orders/<wbr>v2?x=1</span>&quot;',
    );
    expect(html).toContain(
      ".text .host { white-space: nowrap; overflow-wrap: normal; word-break: keep-all;",
    );
  });

  it("says which run, tool call and task asks, escaped", async () => {
    await ask("Delete 4 callbacks?", "asker", ["approve", "deny"], {
      run_id: "run_1\x1b[2J<b>",
      tool: "delete_callbacks",
      tool_call_id: "call_7",
      task: 'Remove the retired host\u202e "now"',
      fingerprint: "f",
    });
    await ask("Plain question", "plain");

    const { html } = await inbox();
    expect(html).toContain(
      '<p class="asker">Asked by run <code>run_1\\x1b[2J&lt;b&gt;</code> · tool <code>delete_callbacks</code> (call <code>call_7</code>) · task <code>Remove the retired host\\u202e &quot;now&quot;</code></p>',
    );
    // A question without metadata names nobody.
    expect(html.match(/class="asker"/g)).toHaveLength(1);
  });

  it("refuses a post without the page's token or from another site, answering nothing", async () => {
    const interactionId = await ask("Delete 4 callbacks?", "guarded");
    const token = formToken((await inbox()).html);

    const noToken = await post(interactionId, { option_id: "approve" });
    const wrongToken = await post(interactionId, { option_id: "approve", token: "guess" });
    const otherSite = await post(
      interactionId,
      { option_id: "approve", token },
      { origin: "https://evil.example" },
    );
    const unknownOption = await post(interactionId, { option_id: "maybe", token });

    expect([noToken.status, wrongToken.status, otherSite.status, unknownOption.status]).toEqual([
      403, 403, 403, 400,
    ]);
    expect(messaging.interaction(interactionId)?.state).toBe("pending");
    expect(await otherSite.text()).toContain("https://evil.example cannot post");
  });

  it("refuses a post without the page's Origin, or that the browser marks cross-site", async () => {
    const interactionId = await ask("Delete 4 callbacks?", "origin");
    const token = formToken((await inbox()).html);

    const noOrigin = await post(
      interactionId,
      { option_id: "approve", token },
      { origin: undefined },
    );
    const crossSite = await post(
      interactionId,
      { option_id: "approve", token },
      { "sec-fetch-site": "cross-site" },
    );
    const sameSite = await post(
      interactionId,
      { option_id: "approve", token },
      { "sec-fetch-site": "same-site" },
    );

    expect([noOrigin.status, crossSite.status, sameSite.status]).toEqual([403, 403, 403]);
    expect(await noOrigin.text()).toContain("carries no Origin header");
    expect(await crossSite.text()).toBe(
      `The browser marks this form post as "cross-site", not same-origin; use the page at ${messaging.url}.`,
    );
    expect(crossSite.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(messaging.interaction(interactionId)?.state).toBe("pending");

    const fromPage = await post(
      interactionId,
      { option_id: "deny", token },
      { "sec-fetch-site": "same-origin" },
    );
    expect(fromPage.status).toBe(303);
    expect(messaging.interaction(interactionId)?.state).toBe("answered");
  });

  it("gives each start its own link ids, interaction ids and form token", async () => {
    const other = await startMessagingSimulator({ answer: "never", deliveryStepMs: 1 });
    try {
      const send = (simulator: MessagingSimulator) =>
        fetch(`${simulator.url}/v1/messages`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${simulator.token}`,
            "content-type": "application/json",
            "idempotency-key": "same-key",
          },
          body: JSON.stringify({
            subscription_link_id: simulator.approverLinkId,
            kind: "interaction",
            text: "Delete 4 callbacks?",
            options: [{ id: "approve", label: "Approve" }],
          }),
        }).then(async (response) => (await response.json()) as { interaction_id: string });
      // The consent page of the link nobody opened yet carries the form token.
      const consentToken = async (simulator: MessagingSimulator) =>
        formToken(await (await fetch(simulator.links()[1]!.url)).text());

      expect(other.approverLinkId).not.toBe(messaging.approverLinkId);
      for (const [index, link] of other.links().entries()) {
        expect(link.subscription_link_id).not.toBe(messaging.links()[index]!.subscription_link_id);
      }
      expect((await send(other)).interaction_id).not.toBe((await send(messaging)).interaction_id);
      expect(await consentToken(other)).not.toBe(await consentToken(messaging));
      // One start's address is no key to another's inbox.
      expect((await fetch(`${messaging.url}/inbox/${other.approverLinkId}`)).status).toBe(404);
    } finally {
      await other.close();
    }
  });

  it("keeps its ids for a seed, and its links across a reset", async () => {
    const [first, second] = await Promise.all([
      startMessagingSimulator({ seed: 7 }),
      startMessagingSimulator({ seed: 7 }),
    ]);
    try {
      expect(second.links().map((link) => link.subscription_link_id)).toEqual(
        first.links().map((link) => link.subscription_link_id),
      );
      const approver = messaging.approverLinkId;
      messaging.reset();
      expect(messaging.links()[0]!.subscription_link_id).toBe(approver);
      expect((await inbox()).response.status).toBe(200);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("reloads itself while nothing waits, so a new question shows up", async () => {
    const { html } = await inbox();

    expect(html).toContain("No questions yet");
    expect(html).toContain('<meta http-equiv="refresh" content="3">');
  });

  it("says which run, tool and task ask, and that a run without an id is not saved", async () => {
    const saved = await ask("Cancel order ORD-1?", "saved", undefined, {
      run_id: "run_7",
      tool: "cancel_orders",
      tool_call_id: "call_1_0",
      task: "tidy <b>orders</b>",
    });
    const unsaved = await ask("Cancel order ORD-2?", "unsaved", undefined, {
      tool: "cancel_orders",
    });
    const { html } = await inbox();
    const article = (id: string) =>
      html.slice(html.indexOf(`<article id="interaction-${id}"`)).split("</article>")[0]!;
    expect(article(saved)).toContain(
      '<p class="asker">Asked by run <code>run_7</code> · tool <code>cancel_orders</code> (call <code>call_1_0</code>) · task <code>tidy &lt;b&gt;orders&lt;/b&gt;</code></p>',
    );
    expect(article(unsaved)).toContain(
      '<p class="asker">Asked by a run that is not saved (no run id) · tool <code>cancel_orders</code></p>',
    );
  });

  it("shows a question answered elsewhere as answered at its next reload", async () => {
    const id = await ask("Cancel order ORD-3?", "elsewhere");
    expect((await inbox()).html).toContain('http-equiv="refresh"');
    messaging.answerInteraction(id, "approve");
    const { html } = await inbox();
    expect(html).toMatch(/Answered: Approve \[approve\]/);
    expect(html).toContain('<meta http-equiv="refresh" content="3">');
  });
});
