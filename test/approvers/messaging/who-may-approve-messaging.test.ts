import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalRule } from "../../../src/agent/approval/approval-rule.js";
import type { ApproverDirectory } from "../../../src/agent/approval/approver-directory.js";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../../src/simulators/index.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { orderTools } from "../../../src/tools/orders/order-tools.js";
import { useTemporaryDirectories } from "../../agent/durable/durable-helpers.js";
import { type PeopleOnMessaging, peopleOnMessaging, questionsOut } from "./people-on-messaging.js";

let orders: OrdersSimulator;
let messaging: MessagingSimulator;
let people: PeopleOnMessaging;
const makeDirectory = useTemporaryDirectories();

beforeAll(async () => {
  orders = await startOrdersSimulator();
  messaging = await startMessagingSimulator({ answer: "never", deliveryStepMs: 1 });
});
afterAll(() => Promise.all([orders.close(), messaging.close()]));
beforeEach(async () => {
  orders.reset();
  messaging.reset();
  people = await peopleOnMessaging(messaging);
});

const deletions = () =>
  orders.requests.filter(
    (request) => request.method === "DELETE" && request.path.endsWith("/callbacks"),
  );

const oncallTwo: ApprovalRule = {
  name: "deletions by on-call",
  tool: "delete_callbacks",
  decision: "ask",
  roles: ["oncall"],
  required: 2,
};

/** An agent deleting one callback under `rule`, asking through messaging, with `directory`. */
function deletingAgent(
  rule: ApprovalRule,
  options: {
    directory?: ApproverDirectory;
    approver?: Parameters<PeopleOnMessaging["approver"]>[0];
    runStore?: FileRunStore;
    model?: ScriptedModel;
  } = {},
) {
  const id = orders.callbacks()[0]!.id;
  const model =
    options.model ??
    new ScriptedModel([
      {
        toolCalls: [
          { name: "delete_callbacks", arguments: { callback_ids: [id] }, id: "call_delete" },
        ],
      },
      { text: "done" },
    ]);
  const agent = new Agent({
    model,
    tools: orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })),
    approver: people.approver({ timeoutMs: 5_000, ...options.approver }),
    approverDirectory: options.directory ?? people.directory,
    approvalPolicy: { rules: [rule] },
    ...(options.runStore ? { runStore: options.runStore } : {}),
  });
  return { agent, id };
}

/** The directory without `withRoles`: the approver asks the links of its own options. */
function withoutListing(): ApproverDirectory {
  const { directory } = people;
  return {
    recognize: (identity) => directory.recognize(identity),
    person: (id) => directory.person(id),
  };
}

/** Answers every question to `ids`' links (each person's first link) with `option`, once all are out. */
async function answerAs(count: number, answers: Record<string, string>) {
  const questions = await questionsOut(messaging, count);
  for (const question of questions) {
    const who = people.whoseIs(question) ?? "unknown";
    const option = answers[who] ?? answers[people.linkOf(question)];
    if (option !== undefined) messaging.answerInteraction(question.interaction_id, option);
  }
  return questions;
}

const approvalOf = (result: Awaited<ReturnType<Agent["run"]>>) =>
  result.steps[0]?.toolCalls[0]?.approval as Record<string, unknown> | undefined;
const peopleIn = (approval: Record<string, unknown> | undefined) =>
  ((approval?.people as Array<{ id: string }> | undefined) ?? []).map((person) => person.id);

describe("who may approve, asked on messaging (an agent with a directory)", () => {
  it("2 of 3 on-call people approve: it runs once, the record names both, the third question is withdrawn", async () => {
    const { agent, id } = deletingAgent(oncallTwo);
    const running = agent.run("delete one callback", { startedBy: "erin" });
    const questions = await answerAs(3, { alice: "approve", bob: "approve" });
    const result = await running;
    expect(deletions()).toHaveLength(1);
    expect(deletions()[0]?.body).toEqual([id]);
    expect(result.steps[0]?.toolCalls[0]?.status).toBe("succeeded");
    expect(peopleIn(approvalOf(result)).sort()).toEqual(["alice", "bob"]);
    const carol = questions.find((question) => people.whoseIs(question) === "carol")!;
    expect(messaging.interaction(carol.interaction_id)?.state).toBe("canceled");
    // Neither the lead, the viewer, nor the approver's own link was asked.
    expect(questions.map((question) => people.whoseIs(question)).sort()).toEqual([
      "alice",
      "bob",
      "carol",
    ]);
  });

  it("does not ask the person who started the run; the other two must approve", async () => {
    const { agent } = deletingAgent(oncallTwo);
    const running = agent.run("delete one callback", { startedBy: "alice" });
    const questions = await answerAs(2, { bob: "approve", carol: "approve" });
    const result = await running;
    expect(questions.map((question) => people.whoseIs(question)).sort()).toEqual(["bob", "carol"]);
    expect(deletions()).toHaveLength(1);
    expect(peopleIn(approvalOf(result)).sort()).toEqual(["bob", "carol"]);
  });

  it("refuses at once, asking nobody, when too few on-call people can be reached", async () => {
    messaging.revokeLink(people.links.bob![0]!);
    messaging.revokeLink(people.links.carol![0]!);
    const { agent } = deletingAgent(oncallTwo);
    const result = await agent.run("delete one callback", { startedBy: "erin" });
    expect(messaging.messages()).toEqual([]);
    expect(deletions()).toEqual([]);
    expect(approvalOf(result)).toMatchObject({ outcome: "refused", code: "not_enough_approvers" });
    expect(String(approvalOf(result)?.reason)).toContain('"Bob Roy" (bob) has no active link');
  });

  it("escalates to the lead role when nobody decided in time; the lead's approval counts", async () => {
    const { agent } = deletingAgent({
      ...oncallTwo,
      required: 1,
      escalateTo: { roles: ["lead"], afterMs: 200 },
    });
    const running = agent.run("delete one callback", { startedBy: "erin" });
    const questions = await questionsOut(messaging, 4);
    const lead = questions.find((question) => people.whoseIs(question) === "dan")!;
    messaging.answerInteraction(lead.interaction_id, "approve");
    const result = await running;
    expect(deletions()).toHaveLength(1);
    expect(peopleIn(approvalOf(result))).toEqual(["dan"]);
    for (const question of questions.filter((one) => one !== lead)) {
      expect(messaging.interaction(question.interaction_id)?.state).toBe("canceled");
    }
  });

  it("a suspended run, resumed by a fresh agent, reads every person's answer", async () => {
    const directory = await makeDirectory();
    const first = deletingAgent(oncallTwo, {
      runStore: new FileRunStore({ directory }),
      model: new ScriptedModel([
        {
          toolCalls: [
            {
              name: "delete_callbacks",
              arguments: { callback_ids: [orders.callbacks()[0]!.id] },
              id: "call_delete",
            },
          ],
        },
      ]),
    });
    const suspended = await first.agent.run("delete one callback", {
      startedBy: "erin",
      suspendOnApproval: true,
    });
    expect(suspended.status).toBe("suspended");
    const questions = messaging.interactions();
    expect(questions).toHaveLength(3);
    const byWho = (id: string) => questions.find((question) => people.whoseIs(question) === id)!;
    messaging.answerInteraction(byWho("alice").interaction_id, "approve");
    const resume = () =>
      deletingAgent(oncallTwo, {
        runStore: new FileRunStore({ directory }),
        model: new ScriptedModel([{ text: "done" }]),
      }).agent.resume(suspended.runId!);
    expect((await resume()).status).toBe("suspended");
    expect(deletions()).toEqual([]);
    messaging.answerInteraction(byWho("carol").interaction_id, "approve");
    const final = await resume();
    expect(final.status).toBe("completed");
    expect(deletions()).toHaveLength(1);
    const record = final.steps.flatMap((step) => step.toolCalls).find((call) => call.approval);
    expect(peopleIn(record?.approval as unknown as Record<string, unknown>).sort()).toEqual([
      "alice",
      "carol",
    ]);
    expect(messaging.interaction(byWho("bob").interaction_id)?.state).toBe("canceled");
    expect(messaging.messages()).toHaveLength(3);
  });

  it("a suspended run escalates to the lead role when resumed after the wait, asking the lead once", async () => {
    const directory = await makeDirectory();
    const rule: ApprovalRule = {
      ...oncallTwo,
      required: 1,
      escalateTo: { roles: ["lead"], afterMs: 100 },
    };
    const agentFor = (model: ScriptedModel) =>
      deletingAgent(rule, { runStore: new FileRunStore({ directory }), model }).agent;
    const id = orders.callbacks()[0]!.id;
    const suspended = await agentFor(
      new ScriptedModel([
        {
          toolCalls: [
            { name: "delete_callbacks", arguments: { callback_ids: [id] }, id: "call_delete" },
          ],
        },
      ]),
    ).run("delete one callback", { startedBy: "erin", suspendOnApproval: true });
    expect(suspended.status).toBe("suspended");
    expect(
      messaging
        .interactions()
        .map((question) => people.whoseIs(question))
        .sort(),
    ).toEqual(["alice", "bob", "carol"]);
    // Past the escalation's wait, each resume (a fresh agent) asks the lead, under the same key.
    await new Promise((resolve) => setTimeout(resolve, 150));
    for (let resumes = 0; resumes < 2; resumes++) {
      const again = await agentFor(new ScriptedModel([])).resume(suspended.runId!);
      expect(again.status).toBe("suspended");
    }
    const lead = messaging.interactions().filter((question) => people.whoseIs(question) === "dan");
    expect(lead).toHaveLength(1);
    expect(messaging.messages()).toHaveLength(4);
    messaging.answerInteraction(lead[0]!.interaction_id, "approve");
    const final = await agentFor(new ScriptedModel([{ text: "done" }])).resume(suspended.runId!);
    expect(final.status).toBe("completed");
    expect(deletions()).toHaveLength(1);
    const record = final.steps.flatMap((step) => step.toolCalls).find((call) => call.approval);
    expect(peopleIn(record?.approval as unknown as Record<string, unknown>)).toEqual(["dan"]);
    const others = messaging.interactions().filter((one) => people.whoseIs(one) !== "dan");
    expect(others.map((question) => question.state)).toEqual(["canceled", "canceled", "canceled"]);
  });
});

describe("answers the rule does not allow, on messaging, run nothing", () => {
  /** The approver asks the two links given (the directory cannot list people); both approve. */
  async function bothApprove(first: string, second: string, startedBy = "dan") {
    const { agent } = deletingAgent(oncallTwo, {
      directory: withoutListing(),
      approver: { subscriptionLinkId: first, secondSubscriptionLinkId: second },
    });
    const running = agent.run("delete one callback", { startedBy });
    for (const question of await questionsOut(messaging, 2)) {
      messaging.answerInteraction(question.interaction_id, "approve");
    }
    const result = await running;
    expect(deletions()).toEqual([]);
    return approvalOf(result);
  }

  it("a person of the wrong role", async () => {
    const approval = await bothApprove(people.links.alice![0]!, people.links.erin![0]!);
    expect(approval).toMatchObject({ outcome: "refused", code: "approver_not_allowed" });
    // The record names who answered, each by directory id and the link that recognised them.
    expect(approval?.people).toEqual([
      { id: "alice", name: "Alice Ng", channel: "messaging", evidence: people.links.alice![0] },
      { id: "erin", name: "Erin Wu", channel: "messaging", evidence: people.links.erin![0] },
    ]);
  });

  it("an unknown link (an answer source the directory does not know)", async () => {
    const approval = await bothApprove(people.links.alice![0]!, messaging.approverLinkId);
    expect(approval).toMatchObject({ outcome: "refused", code: "approver_not_allowed" });
    expect(peopleIn(approval)).toEqual(["alice"]);
  });

  it("the person who started the run", async () => {
    const approval = await bothApprove(people.links.alice![0]!, people.links.bob![0]!, "alice");
    expect(approval).toMatchObject({ outcome: "refused", code: "self_approval" });
  });

  it("one person answering from two of their own links counts once", async () => {
    messaging.reset();
    people = await peopleOnMessaging(messaging, [
      { id: "alice", name: "Alice Ng", roles: ["oncall"], links: ["active", "active"] },
      { id: "bob", name: "Bob Roy", roles: ["oncall"] },
    ]);
    const approval = await bothApprove(people.links.alice![0]!, people.links.alice![1]!, "bob");
    expect(approval).toMatchObject({ outcome: "refused", code: "not_enough_approvers" });
  });
});
