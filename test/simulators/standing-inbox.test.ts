import { Agent, MessagingApprover, MessagingClient } from "switchyard-agents";
import { type MessagingSimulator, startMessagingSimulator } from "switchyard-agents/simulators";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";

let messaging: MessagingSimulator;
beforeEach(async () => {
  // Nobody answers but the person on the page.
  messaging = await startMessagingSimulator({ answer: "never", deliveryStepMs: 1 });
});
afterEach(() => messaging.close());

describe("the inbox page and standing approvals", () => {
  it("shows the scope and an 'Approve this and up to N more like it' button; pressing it grants the scope", async () => {
    const deleted: string[][] = [];
    const tool = defineTool({
      name: "delete_callbacks",
      description: "Deletes callbacks.",
      parameters: z.object({ ids: z.array(z.string()) }),
      needsApproval: true,
      target: { service: "orders", environment: "sandbox" },
      execute: ({ ids }) => {
        deleted.push(ids);
        return { deleted: ids.length };
      },
    });
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] } }] },
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-2"] } }] },
        { text: "done" },
      ]),
      tools: [tool],
      approver: new MessagingApprover({
        client: new MessagingClient({ baseUrl: messaging.url, token: messaging.token }),
        subscriptionLinkId: messaging.approverLinkId,
        pollIntervalMs: 5,
        maxPollIntervalMs: 10,
      }),
      approvalPolicy: {
        rules: [
          {
            name: "deletions",
            tool: "delete_callbacks",
            decision: "ask",
            standing: { maxCalls: 3, forMs: 600_000 },
          },
        ],
      },
    });
    const running = agent.run("delete");
    let html = "";
    while (!html.includes('value="approve_standing"')) {
      html = await (await fetch(messaging.inboxUrl)).text();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(html).toContain(
      '<button type="submit" name="option_id" value="approve_standing" class="option-approve_standing">Approve this and up to 3 more like it</button>',
    );
    expect(html).toContain("then up to 3 more calls of delete_callbacks in this run");
    const interactionId = /id="interaction-([^"]+)"/.exec(html)![1]!;
    const token = /name="token" value="([^"]+)"/.exec(html)![1]!;
    const answered = await fetch(`${messaging.inboxUrl}/interactions/${interactionId}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: messaging.url },
      body: new URLSearchParams({ token, option_id: "approve_standing" }),
      redirect: "manual",
    });
    expect(answered.status).toBe(303);
    const result = await running;
    expect(result.status).toBe("completed");
    expect(deleted).toEqual([["cb-1"], ["cb-2"]]);
    expect(messaging.interactions()).toHaveLength(1);
  });
});
