import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { type MessagingSimulator, startMessagingSimulator } from "../../../src/simulators/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";

// A key of the application's own: nothing but the agent's `secrets` option names it.
const secret = "acct-key-7Qw9Lm2Zx4";

let messaging: MessagingSimulator;

beforeAll(async () => {
  messaging = await startMessagingSimulator({ answer: "deny", deliveryStepMs: 1 });
});
afterAll(() => messaging.close());
beforeEach(() => messaging.reset());

function agentWith(model: ScriptedModel, ran: unknown[]): Agent {
  const forward = defineTool({
    name: "forward_report",
    description: "Sends the report to a partner endpoint.",
    parameters: z.object({ endpoint: z.string(), header: z.string() }),
    needsApproval: true,
    // A tool's description may quote its arguments: a detail shows the header.
    describeAction: ({ header }) => ({
      summary: "Send the report to the partner endpoint.",
      details: [{ label: "header", value: header }],
      irreversible: true,
    }),
    execute: async (args) => {
      ran.push(args);
      return { sent: true };
    },
  });
  return new Agent({
    model,
    tools: [forward],
    secrets: [secret],
    approver: new MessagingApprover({
      client: new MessagingClient({ baseUrl: messaging.url, token: messaging.token }),
      subscriptionLinkId: messaging.approverLinkId,
      pollIntervalMs: 5,
      maxPollIntervalMs: 10,
    }),
    approvalPolicy: {
      edits: true,
      rules: [
        {
          name: "forwards",
          tool: "forward_report",
          decision: "ask",
          edits: true,
          standing: {
            maxCalls: 2,
            forMs: 600_000,
            sameValue: {
              label: "header",
              of: (args) => (args as { header: string }).header,
            },
          },
        },
      ],
    },
  });
}

describe("what the question sent to the messaging service holds of the agent's secrets", () => {
  it("shows a registered secret as a placeholder in the text, arguments, description and standing scope, and binds to the real arguments", async () => {
    const ran: unknown[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            name: "forward_report",
            arguments: { endpoint: "https://partner.example/in", header: secret },
          },
        ],
      },
      { text: "not sent" },
    ]);
    const result = await agentWith(model, ran).run("forward the report");
    expect(result.status).toBe("completed");

    const sent = messaging.requests.filter(
      (request) => request.method === "POST" && request.path === "/v1/messages",
    );
    expect(sent).toHaveLength(1);
    const body = JSON.stringify(sent[0]?.body);
    expect(body).not.toContain(secret);
    const message = messaging.messages()[0]!;
    expect(message.text).not.toContain(secret);
    expect(message.text).toContain('  |   "endpoint": "https://partner.example/in",');
    expect(message.text).toContain('  |   "header": "[redacted] registered secret"');
    expect(message.text).toContain('- header: "[redacted] registered secret"');
    expect(message.text).toContain('whose header is "[redacted] registered secret"');
    expect(message.metadata).toMatchObject({
      arguments: { endpoint: "https://partner.example/in", header: "[redacted] registered secret" },
    });
    // The fingerprint is the real call's: the one the agent's approval record names.
    const record = result.steps
      .flatMap((step) => step.toolCalls)
      .find((call) => call.toolName === "forward_report");
    expect(record?.approval).toMatchObject({ outcome: "refused", code: "denied" });
    expect(message.metadata?.fingerprint).toBe(record?.approval?.fingerprint);
    expect(ran).toEqual([]);
  });

  it("asks nobody about a value with a registered secret inside it: the gate refuses the call and says where", async () => {
    const ran: unknown[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            name: "forward_report",
            arguments: { endpoint: `https://partner.example/in/${secret}`, header: "X-Key" },
          },
        ],
      },
      { text: "not sent" },
    ]);
    const result = await agentWith(model, ran).run("forward the report");
    expect(result.status).toBe("completed");
    expect(messaging.requests.filter((request) => request.path === "/v1/messages")).toEqual([]);
    const record = result.steps
      .flatMap((step) => step.toolCalls)
      .find((call) => call.toolName === "forward_report");
    expect(record?.approval).toMatchObject({ outcome: "refused", code: "secret_in_value" });
    const reason = record?.approval?.outcome === "refused" ? record.approval.reason : "";
    expect(reason).toContain("the argument endpoint");
    expect(reason).not.toContain(secret);
    expect(ran).toEqual([]);
  });

  it("names the run's task in the question's metadata, for the page and the terminal, its secrets removed", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            name: "forward_report",
            arguments: { endpoint: "https://partner.example/in", header: "X" },
          },
        ],
      },
      { text: "not sent" },
    ]);
    await agentWith(model, []).run(`Forward the weekly report with key ${secret}`);
    const message = messaging.messages()[0]!;
    expect(message.metadata?.task).toBe("Forward the weekly report with key [redacted]");
    const inbox = await fetch(`${messaging.url}/inbox/${messaging.approverLinkId}`);
    expect(await inbox.text()).toContain(
      "task <code>Forward the weekly report with key [redacted]</code>",
    );
  });

  it("names the turn that asks in a continued conversation, not the conversation's first message", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            name: "forward_report",
            arguments: { endpoint: "https://partner.example/in", header: "X" },
          },
        ],
      },
      { text: "not sent" },
    ]);
    // A chat's third turn: the first two were answered without asking anyone.
    await agentWith(model, []).run([
      { role: "user", content: "What reports are there?" },
      { role: "assistant", content: "The weekly report and the monthly report." },
      { role: "user", content: "Which is newer?" },
      { role: "assistant", content: "The weekly report." },
      { role: "user", content: `Forward the weekly one, key ${secret}` },
    ]);
    const message = messaging.messages()[0]!;
    expect(message.metadata?.task).toBe("Forward the weekly one, key [redacted]");
    const inbox = await (await fetch(`${messaging.url}/inbox/${messaging.approverLinkId}`)).text();
    expect(inbox).toContain("task <code>Forward the weekly one, key [redacted]</code>");
    expect(inbox).not.toContain("What reports are there?");
  });

  it("names the person's message, not the run's own correction of a structured answer", async () => {
    const model = new ScriptedModel([
      { text: "not JSON" },
      {
        toolCalls: [
          {
            name: "forward_report",
            arguments: { endpoint: "https://partner.example/in", header: "X" },
          },
        ],
      },
      { text: '{"sent":false}' },
    ]);
    const result = await agentWith(model, []).run("Forward the weekly report", {
      output: z.object({ sent: z.boolean() }),
    });
    expect(result.output).toEqual({ sent: false });
    // The run wrote a user message of its own before the question was asked.
    const requests = model.requests.map((request) => request.messages.at(-1)?.role);
    expect(requests[1]).toBe("user");
    expect(messaging.messages()[0]?.metadata?.task).toBe("Forward the weekly report");
  });
});
