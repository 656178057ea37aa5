import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { approverDirectory } from "../../../src/agent/approval/approver-directory.js";
import type { ApprovalAction } from "../../../src/agent/approver.js";
import { type MessagingSimulator, startMessagingSimulator } from "../../../src/simulators/index.js";
import {
  captureLogger,
  deleteCallbacksAction,
  makeContext,
} from "../../agent/approval/approval-test-helpers.js";
import { readOne } from "../../helpers/approver-verbs.js";
import {
  askingPeople,
  type PeopleOnMessaging,
  peopleOnMessaging,
  questionsOut,
  team,
} from "./people-on-messaging.js";

let messaging: MessagingSimulator;
let people: PeopleOnMessaging;

beforeAll(async () => {
  messaging = await startMessagingSimulator({ answer: "never", deliveryStepMs: 1 });
});
afterAll(() => messaging.close());
beforeEach(async () => {
  messaging.reset();
  people = await peopleOnMessaging(messaging);
});

const action = (): ApprovalAction => deleteCallbacksAction({ callback_ids: ["cb_1", "cb_2"] });

/** The questions out, by the id of the person each went to. */
function byPerson() {
  return new Map(messaging.interactions().map((question) => [people.whoseIs(question), question]));
}

describe("MessagingApprover: asking the people of a directory", () => {
  it("asks each person once, says who is asked and how many must approve, runs on 2 of 3 and withdraws the third question", async () => {
    const asked = askingPeople(action(), people, { ids: ["alice", "bob", "carol"], required: 2 });
    const approver = people.approver();
    const context = makeContext({ runId: "run_people" });
    const ticket = await approver.ask([asked], context);
    const reading = approver.read(ticket, [asked], context);
    await questionsOut(messaging, 3);
    const questions = byPerson();
    expect([...questions.keys()].sort()).toEqual(["alice", "bob", "carol"]);
    for (const [id, question] of questions) {
      expect(people.linkOf(question)).toBe(people.links[id!]![0]);
      expect(question.text).toContain(
        'Asked: "Alice Ng", "Bob Roy" and "Carol Diaz"; 2 of them must approve, and a denial from any one of them stops it.',
      );
      expect(question.metadata.who_is_asked).toContain('"Bob Roy"');
    }
    // Nobody else was asked: not the fallback link, not the lead or the viewer.
    expect(messaging.messages()).toHaveLength(3);
    messaging.answerInteraction(questions.get("alice")!.interaction_id, "approve");
    messaging.answerInteraction(questions.get("bob")!.interaction_id, "approve");
    const [decision] = await reading;
    expect(decision).toMatchObject({
      outcome: "approved",
      fingerprint: asked.fingerprint,
      approvers: [{ approverLink: people.links.alice![0] }, { approverLink: people.links.bob![0] }],
    });
    expect(messaging.interaction(questions.get("carol")!.interaction_id)?.state).toBe("canceled");
  });

  it("refuses on one denial, withdrawing the questions still open", async () => {
    const asked = askingPeople(action(), people, { ids: ["alice", "bob", "carol"], required: 2 });
    const approver = people.approver();
    const context = makeContext();
    const reading = approver.read(await approver.ask([asked], context), [asked], context);
    await questionsOut(messaging, 3);
    const questions = byPerson();
    messaging.answerInteraction(questions.get("alice")!.interaction_id, "approve");
    messaging.answerInteraction(questions.get("carol")!.interaction_id, "deny");
    const [decision] = await reading;
    expect(decision).toMatchObject({
      outcome: "refused",
      code: "denied",
      approverLink: people.links.carol![0],
    });
    expect(messaging.interaction(questions.get("bob")!.interaction_id)?.state).toBe("canceled");
  });

  it("skips people who cannot be reached, with a warning, and asks the first active link of each", async () => {
    messaging.reset();
    people = await peopleOnMessaging(messaging, [
      { ...team[0]!, links: ["revoked", "active", "active"] },
      { ...team[1]!, links: ["pending"] },
      { ...team[2]!, links: [] },
      { id: "gus", name: "Gus Ortiz", roles: ["oncall"] },
    ]);
    const { logger, lines } = captureLogger();
    const asked = askingPeople(action(), people, {
      ids: ["alice", "bob", "carol", "gus"],
      required: 2,
    });
    const approver = people.approver();
    const context = makeContext({ logger });
    const ticket = await approver.ask([asked], context);
    const questions = byPerson();
    expect([...questions.keys()].sort()).toEqual(["alice", "gus"]);
    expect(people.linkOf(questions.get("alice")!)).toBe(people.links.alice![1]);
    const warnings = lines.filter((line) => line.level === 40).map((line) => String(line.approver));
    expect(warnings).toEqual([
      expect.stringContaining('"Bob Roy" (bob) has no active link'),
      '"Carol Diaz" (carol) has no messaging link',
    ]);
    expect(questions.get("gus")!.text).toContain('Asked: "Alice Ng" and "Gus Ortiz"; 2 of them');
    messaging.answerInteraction(questions.get("alice")!.interaction_id, "approve");
    messaging.answerInteraction(questions.get("gus")!.interaction_id, "approve");
    expect(await readOne(approver, ticket, asked, context)).toMatchObject({ outcome: "approved" });
  });

  it("refuses at once, asking nobody, when fewer people than required can be asked, naming who cannot", async () => {
    messaging.revokeLink(people.links.carol![0]!);
    const asked = askingPeople(action(), people, { ids: ["alice", "bob", "carol"], required: 3 });
    const approver = people.approver();
    const context = makeContext();
    const ticket = await approver.ask([asked], context);
    expect(messaging.messages()).toEqual([]);
    const decision = await readOne(approver, ticket, asked, context);
    expect(decision).toMatchObject({ outcome: "refused", code: "not_enough_approvers" });
    const reason = decision.outcome === "refused" ? decision.reason : "";
    expect(reason).toContain(
      "needs 3 approvers, and only 2 of the people who may approve it can be asked",
    );
    expect(reason).toContain(
      `"Carol Diaz" (carol) has no active link ("${people.links.carol![0]}" is revoked)`,
    );
  });

  it("refuses, asking nobody, a question that would go to more people than one question may", async () => {
    const crowd = approverDirectory({
      people: Array.from({ length: 101 }, (_, index) => ({
        id: `p${index}`,
        roles: ["oncall"],
        identities: { messaging: [`sl_p${index}`] },
      })),
    });
    const asked: ApprovalAction = {
      ...action(),
      whoMayApprove: { roles: ["oncall"], required: 2, people: await crowd.withRoles!(["oncall"]) },
    };
    const approver = people.approver();
    const decision = await readOne(
      approver,
      await approver.ask([asked], makeContext()),
      asked,
      makeContext(),
    );
    expect(decision).toMatchObject({ outcome: "refused", code: "approver_unavailable" });
    expect(decision.outcome === "refused" ? decision.reason : "").toContain(
      "would be put to 101 people at once, more than the 100",
    );
    expect(messaging.messages()).toEqual([]);
  });

  it("never asks the person who started the run, when the gate excludes them", async () => {
    const asked = askingPeople(action(), people, {
      ids: ["alice", "bob", "carol"],
      required: 2,
      excluded: "alice",
    });
    await people.approver().ask([asked], makeContext());
    expect([...byPerson().keys()].sort()).toEqual(["bob", "carol"]);
  });

  it("sends each person's question under a key of the approval and their link: asked again after a crash, nobody gets a second question", async () => {
    const asked = askingPeople(action(), people, { ids: ["alice", "bob"], required: 2 });
    const first = JSON.parse(await people.approver().ask([asked], makeContext()));
    // A new process asks the same action again (its state was not saved): the same questions come back.
    const again = JSON.parse(await people.approver().ask([asked], makeContext()));
    expect(again.questions[0].sent).toEqual(first.questions[0].sent);
    expect(messaging.messages()).toHaveLength(2);
    const keys = messaging.requests
      .filter((request) => request.method === "POST" && request.path === "/v1/messages")
      .map((request) => request.headers["idempotency-key"]);
    expect(new Set(keys).size).toBe(2);
  });

  it("shows hostile names escaped, never as lines of their own", async () => {
    messaging.reset();
    people = await peopleOnMessaging(messaging, [
      { id: "mallory", name: 'Mallory"\nApproved by the security team', roles: ["oncall"] },
    ]);
    const asked = askingPeople(action(), people, { ids: ["mallory"], required: 1 });
    await people.approver().ask([asked], makeContext());
    const [question] = messaging.interactions();
    expect(question!.text).toContain('Asked: "Mallory\\"\\nApproved by the security team".');
    expect(question!.text.split("\n")).not.toContain("Approved by the security team");
  });
});

describe("MessagingApprover: escalation to a role", () => {
  it("asks the escalation's people when nobody decided in time; they count like the others", async () => {
    const asked = askingPeople(action(), people, {
      ids: ["alice"],
      required: 1,
      escalation: { ids: ["dan"], roles: ["lead"], afterMs: 150 },
    });
    const approver = people.approver();
    const context = makeContext();
    const reading = approver.read(await approver.ask([asked], context), [asked], context);
    const [first] = await questionsOut(messaging, 1);
    expect(first!.text).toContain(
      'Asked: "Alice Ng". If nobody decides within 150 ms, "Dan Lee" (role "lead") is asked too, and count like the others.',
    );
    const questions = await questionsOut(messaging, 2);
    const dan = questions.find((question) => people.whoseIs(question) === "dan")!;
    expect(dan.text).toBe(first!.text);
    messaging.answerInteraction(dan.interaction_id, "approve");
    const [decision] = await reading;
    expect(decision).toMatchObject({ outcome: "approved", approverLink: people.links.dan![0] });
    expect(messaging.interaction(first!.interaction_id)?.state).toBe("canceled");
  });

  it("asks nobody else when the first people decide in time", async () => {
    const asked = askingPeople(action(), people, {
      ids: ["alice", "bob"],
      required: 2,
      escalation: { ids: ["dan"], roles: ["lead"], afterMs: 60_000 },
    });
    const approver = people.approver();
    const context = makeContext();
    const reading = approver.read(await approver.ask([asked], context), [asked], context);
    for (const question of await questionsOut(messaging, 2)) {
      messaging.answerInteraction(question.interaction_id, "approve");
    }
    expect((await reading)[0]).toMatchObject({ outcome: "approved" });
    expect(messaging.messages()).toHaveLength(2);
  });
});

describe("MessagingApprover: an escalation due after the wait ends", () => {
  it("is never asked: the approval expires and the question is withdrawn", async () => {
    const asked = askingPeople(action(), people, {
      ids: ["alice"],
      required: 1,
      escalation: { ids: ["dan"], roles: ["lead"], afterMs: 60_000 },
    });
    const approver = people.approver({ timeoutMs: 300 });
    const context = makeContext();
    const [decision] = await approver.read(await approver.ask([asked], context), [asked], context);
    expect(decision).toMatchObject({ outcome: "expired" });
    expect(messaging.messages()).toHaveLength(1);
    expect(messaging.interactions()[0]?.state).toBe("canceled");
  });
});

describe("MessagingApprover: people asked for a suspended run", () => {
  it("reads every person's answer in a fresh approver, pending until enough approved", async () => {
    const asked = askingPeople(action(), people, { ids: ["alice", "bob", "carol"], required: 2 });
    const context = makeContext({ allowPending: true });
    const ticket = await people.approver().ask([asked], context);
    const questions = byPerson();
    expect(await people.approver().peek(ticket, [asked.approvalId], context)).toMatchObject({
      pending: true,
    });
    messaging.answerInteraction(questions.get("bob")!.interaction_id, "approve");
    expect(await readOne(people.approver(), ticket, asked, context)).toMatchObject({
      outcome: "pending",
    });
    expect(await people.approver().peek(ticket, [asked.approvalId], context)).toMatchObject({
      pending: true,
    });
    messaging.answerInteraction(questions.get("carol")!.interaction_id, "approve");
    expect(await people.approver().peek(ticket, [asked.approvalId], context)).toEqual({
      pending: false,
    });
    expect(await readOne(people.approver(), ticket, asked, context)).toMatchObject({
      outcome: "approved",
      approvers: [{ approverLink: people.links.bob![0] }, { approverLink: people.links.carol![0] }],
    });
    expect(messaging.interaction(questions.get("alice")!.interaction_id)?.state).toBe("canceled");
  });

  it("asks the escalation's people once it is due, whichever process reads, and reads their answer", async () => {
    const asked = askingPeople(action(), people, {
      ids: ["alice"],
      required: 1,
      escalation: { ids: ["dan"], roles: ["lead"], afterMs: 100 },
    });
    const context = makeContext({ allowPending: true });
    const ticket = await people.approver().ask([asked], context);
    const peeked = await people.approver().peek(ticket, [asked.approvalId], context);
    expect(peeked.pending).toBe(true);
    await expect(readOne(people.approver(), ticket, asked, context)).resolves.toMatchObject({
      outcome: "pending",
    });
    expect(messaging.messages()).toHaveLength(1);
    // The worker checks again when the escalation is due: the run is resumed to ask.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, peeked.expiresAt!.getTime() - Date.now()) + 5),
    );
    expect(await people.approver().peek(ticket, [asked.approvalId], context)).toEqual({
      pending: false,
    });
    expect(await readOne(people.approver(), ticket, asked, context)).toMatchObject({
      outcome: "pending",
    });
    expect(await readOne(people.approver(), ticket, asked, context)).toMatchObject({
      outcome: "pending",
    });
    const dan = messaging.interactions().filter((question) => people.whoseIs(question) === "dan");
    expect(dan).toHaveLength(1);
    messaging.answerInteraction(dan[0]!.interaction_id, "approve");
    expect(await readOne(people.approver(), ticket, asked, context)).toMatchObject({
      outcome: "approved",
      approverLink: people.links.dan![0],
    });
    expect(messaging.messages()).toHaveLength(2);
  });
});
