import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type {
  ApprovalAction,
  ApprovalContext,
  ApprovalDecision,
  Approver,
} from "../../../src/agent/approver.js";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { actionFingerprint } from "../../../src/internal/canonical-json.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";

/** A tool that needs approval and records what ran. */
function cancelTool(ran: string[]) {
  return defineTool({
    name: "cancel_order",
    description: "Cancels an order.",
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    describeAction: ({ id }) => ({ summary: `Cancel order ${id}.` }),
    execute: ({ id }) => {
      ran.push(id);
      return `cancelled ${id}`;
    },
  });
}

/** An approver of three verbs that records each verb and answers with `decide`. */
function recordingApprover(
  decide: (action: ApprovalAction) => ApprovalDecision,
  options: { ticket?: string } = {},
) {
  const asked: string[][] = [];
  const read: Array<{ ticket: string; ids: string[]; allowPending: boolean }> = [];
  const approver: Approver = {
    async ask(actions) {
      asked.push(actions.map((action) => action.approvalId));
      return options.ticket ?? `ticket-${asked.length}`;
    },
    async read(ticket, actions, context: ApprovalContext) {
      read.push({
        ticket,
        ids: actions.map((action) => action.approvalId),
        allowPending: context.allowPending === true,
      });
      return actions.map(decide);
    },
  };
  return { approver, asked, read };
}

const twoCancels = () =>
  new ScriptedModel([
    {
      toolCalls: [
        { name: "cancel_order", arguments: { id: "1042" } },
        { name: "cancel_order", arguments: { id: "1043" } },
      ],
    },
    { text: "done" },
  ]);

describe("an approver of three verbs", () => {
  it("is asked once about the gated calls of one model answer, and read by the ticket it gave", async () => {
    const ran: string[] = [];
    const { approver, asked, read } = recordingApprover((action) =>
      (action.arguments as { id: string }).id === "1042"
        ? { outcome: "approved", fingerprint: action.fingerprint }
        : { outcome: "refused", code: "denied", reason: "no" },
    );
    const result = await new Agent({ model: twoCancels(), tools: [cancelTool(ran)], approver }).run(
      "cancel both",
    );
    expect(ran).toEqual(["1042"]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toHaveLength(2);
    expect(read).toEqual([{ ticket: "ticket-1", ids: asked[0], allowPending: false }]);
    expect(result.steps[0]?.toolCalls.map((call) => call.status)).toEqual(["succeeded", "refused"]);
  });

  it("keeps the ticket of an unanswered question in the run's state and reads it on resume, without asking again", async () => {
    const ran: string[] = [];
    let answered = false;
    const { approver, asked, read } = recordingApprover(
      (action) =>
        answered
          ? { outcome: "approved", fingerprint: action.fingerprint }
          : { outcome: "pending" },
      { ticket: "the-question" },
    );
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "cancel_order", arguments: { id: "1042" } }] },
        { text: "done" },
      ]),
      tools: [cancelTool(ran)],
      approver,
    });
    const first = await agent.run("cancel", { suspendOnApproval: true });
    expect(first.status).toBe("suspended");
    expect(first.state?.pendingCalls[0]).toMatchObject({
      phase: "awaiting_approval",
      ticket: "the-question",
    });
    answered = true;
    const second = await agent.resume(first.state!);
    expect(second.status).toBe("completed");
    expect(ran).toEqual(["1042"]);
    expect(asked).toHaveLength(1);
    expect(read.map((one) => one.ticket)).toEqual(["the-question", "the-question"]);
  });

  it("refuses every action of a question when ask throws, or when read does not answer once per action", async () => {
    for (const approver of [
      {
        ask: async () => {
          throw new Error("the channel is down");
        },
        read: async () => [],
      },
      { ask: async () => "t", read: async () => [] },
    ] satisfies Approver[]) {
      const ran: string[] = [];
      const result = await new Agent({
        model: twoCancels(),
        tools: [cancelTool(ran)],
        approver,
      }).run("cancel both");
      expect(ran).toEqual([]);
      expect(result.steps[0]?.toolCalls.map((call) => call.approval?.outcome)).toEqual([
        "refused",
        "refused",
      ]);
    }
  });

  it("refuses to build an agent with an approver written for the old interface, saying what to do", () => {
    const old = { requestApproval: async () => ({ outcome: "approved" }) };
    expect(
      () =>
        new Agent({
          model: new ScriptedModel([]),
          tools: [cancelTool([])],
          approver: old as unknown as Approver,
        }),
    ).toThrow(/approver must have ask\(\) and read\(\) methods/);
  });

  it("MessagingApprover refuses the options that moved to the approval policy, naming where they went", () => {
    for (const moved of ["allowEdits", "offerStanding"]) {
      expect(
        () =>
          new MessagingApprover({
            client: new MessagingClient({ baseUrl: "http://127.0.0.1:9", token: "t" }),
            subscriptionLinkId: "sl_1",
            [moved]: true,
          } as ConstructorParameters<typeof MessagingApprover>[0]),
      ).toThrow(ConfigurationError);
      expect(
        () =>
          new MessagingApprover({
            client: new MessagingClient({ baseUrl: "http://127.0.0.1:9", token: "t" }),
            subscriptionLinkId: "sl_1",
            [moved]: true,
          } as ConstructorParameters<typeof MessagingApprover>[0]),
      ).toThrow(new RegExp(`${moved} is no longer an approver option: .*approvalPolicy`));
    }
  });
});

describe("edits are the asking rule's to allow", () => {
  async function runEdited(
    approvalPolicy: ConstructorParameters<typeof Agent>[0]["approvalPolicy"],
  ) {
    const ran: string[] = [];
    const seen: Array<boolean | undefined> = [];
    // Approves every action with `{ id: "9999" }` instead, bound to the edit's fingerprint.
    const approver: Approver = {
      ask: async (actions) => {
        for (const action of actions) seen.push(action.editable);
        return "t";
      },
      read: async (_ticket, actions) => {
        return actions.map((action) => ({
          outcome: "approved" as const,
          editedArguments: { id: "9999" },
          fingerprint: actionFingerprint(action.toolName, { id: "9999" }, action.target),
        }));
      },
    };
    const result = await new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "cancel_order", arguments: { id: "1042" } }] },
        { text: "done" },
      ]),
      tools: [cancelTool(ran)],
      approver,
      approvalPolicy,
    }).run("cancel");
    return { ran, seen, approval: result.steps[0]?.toolCalls[0]?.approval };
  }

  it("refuses an edit when no rule allows one, whichever approver sent it", async () => {
    const { ran, seen, approval } = await runEdited(undefined);
    expect(seen).toEqual([undefined]);
    expect(ran).toEqual([]);
    expect(approval).toMatchObject({ outcome: "refused", code: "invalid_edit" });
  });

  it("runs the edited call when the asking rule has edits: true, and tells the approver so", async () => {
    const { ran, seen, approval } = await runEdited({
      rules: [{ name: "cancels", tool: "cancel_order", decision: "ask", edits: true }],
    });
    expect(seen).toEqual([true]);
    expect(ran).toEqual(["9999"]);
    expect(approval).toMatchObject({ outcome: "approved", edited: { arguments: { id: "9999" } } });
  });

  it("lets approvalPolicy.edits stand for the questions the tools' needsApproval asks", async () => {
    const { ran, seen } = await runEdited({ edits: true });
    expect(seen).toEqual([true]);
    expect(ran).toEqual(["9999"]);
  });

  it("allows no edit of a question two approvers must approve", async () => {
    const { ran, seen } = await runEdited({
      rules: [{ name: "cancels", tool: "cancel_order", decision: "ask", edits: true, required: 2 }],
    });
    expect(seen).toEqual([undefined]);
    expect(ran).toEqual([]);
  });

  it("refuses edits on a rule that does not ask, saying why", () => {
    expect(
      () =>
        new Agent({
          model: new ScriptedModel([]),
          tools: [cancelTool([])],
          approvalPolicy: {
            rules: [{ name: "cancels", tool: "cancel_order", decision: "allow", edits: true }],
          },
        }),
    ).toThrow(/required, standing and edits apply to "ask" rules only/);
  });
});
