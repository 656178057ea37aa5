import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { useMessagingAndOrders, useTemporaryDirectories } from "./durable-helpers.js";

const simulators = useMessagingAndOrders();
const makeDirectory = useTemporaryDirectories();

/** What one process builds: a new approver and store on the same directory, recording each decision. */
function buildAgent(directory: string, model: ScriptedModel, ran: string[], decided: unknown[]) {
  const cancel = defineTool({
    name: "cancel_order",
    description: "Cancels an order.",
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    describeAction: ({ id }) => ({ summary: `Cancel order ${id}.`, irreversible: true }),
    execute: ({ id }) => {
      ran.push(id);
      return `cancelled ${id}`;
    },
  });
  const approver = new MessagingApprover({
    client: new MessagingClient({
      baseUrl: simulators.messaging.url,
      token: simulators.messaging.token,
      maxRetries: 0,
    }),
    subscriptionLinkId: simulators.messaging.approverLinkId,
    timeoutMs: 5_000,
    pollIntervalMs: 5,
  });
  return new Agent({
    model,
    tools: [cancel],
    approver,
    runStore: new FileRunStore({ directory }),
    onApprovalDecided: (record) => void decided.push(record),
  });
}

const questionsSent = () =>
  simulators.messaging.requests.filter(
    (request) => request.method === "POST" && request.path === "/v1/messages",
  ).length;
const interactionReads = () =>
  simulators.messaging.requests.filter(
    (request) => request.method === "GET" && request.path.startsWith("/v1/interactions/"),
  ).length;

describe("a question about several calls in a suspended run", () => {
  it("keeps one ticket for the question, peeks it once, and reads each call's answer with the question's digest in another process", async () => {
    const directory = await makeDirectory();
    const ran: string[] = [];
    const decided: Array<Record<string, unknown>> = [];
    const first = await buildAgent(
      directory,
      new ScriptedModel([
        {
          toolCalls: [
            { name: "cancel_order", arguments: { id: "1042" } },
            { name: "cancel_order", arguments: { id: "1043" } },
          ],
        },
      ]),
      ran,
      decided,
    ).run("cancel the late orders", { suspendOnApproval: true });
    expect(first.status).toBe("suspended");
    expect(questionsSent()).toBe(1);
    const waiting = first.state?.pendingCalls ?? [];
    expect(waiting.map((call) => call.phase)).toEqual(["awaiting_approval", "awaiting_approval"]);
    const ticket = waiting[0]?.ticket;
    expect(waiting[1]?.ticket).toBe(ticket);
    // Each call keeps its own approval id; the ticket names the one question both wait on.
    expect(waiting[0]?.approvalId).not.toBe(waiting[1]?.approvalId);
    const interactionId = waiting[0]?.interactionId ?? "";
    expect(waiting[1]?.interactionId).toBe(interactionId);

    const peeker = buildAgent(directory, new ScriptedModel([]), ran, decided);
    const readsBefore = interactionReads();
    await expect(peeker.peekPendingAnswers(first.state!)).resolves.toMatchObject({ pending: true });
    expect(interactionReads() - readsBefore).toBe(1);

    simulators.messaging.answerInteraction(interactionId, "approve_some", "2");
    const final = await buildAgent(
      directory,
      new ScriptedModel([{ text: "Cancelled 1043 only." }]),
      ran,
      decided,
    ).resume(first.runId ?? "");
    expect(final.status).toBe("completed");
    expect(ran).toEqual(["1043"]);
    expect(questionsSent()).toBe(1);
    const outcomes = decided.map((record) => [record.toolCallId, record.outcome]);
    expect(outcomes.map(([, outcome]) => outcome).sort()).toEqual(["approved", "refused"]);
    // Read in another process, each decision still names the question it answers, as sent.
    for (const record of decided) {
      expect(record.questionDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(record.interactionId).toBe(interactionId);
    }
    expect(decided[0]?.questionDigest).toBe(decided[1]?.questionDigest);
  });
});
