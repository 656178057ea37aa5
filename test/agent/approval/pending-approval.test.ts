import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalAction, ApprovalContext } from "../../../src/agent/approver.js";
import { InMemoryRunStore } from "../../../src/agent/durable/in-memory-run-store.js";
import { textDigest } from "../../../src/internal/canonical-json.js";
import { readOne } from "../../helpers/approver-verbs.js";
import {
  answered,
  base,
  cancelPath,
  deleteCallbacksAction,
  interaction,
  interactionId,
  interactionPath,
  linkId,
  makeApprover,
  makeContext,
  messageId,
  messagePath,
  nockReady,
  nockSend,
} from "./approval-test-helpers.js";

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

/** Asks about `action` as a durable run does, and gives the ticket it keeps. */
async function askedTicket(action: ApprovalAction, sent: Record<string, unknown>[] = []) {
  nockReady();
  nockSend(sent);
  return makeApprover().ask([action], makeContext({ allowPending: true, runId: "run_1" }));
}

/** A durable run's read of `action` by its ticket, with a fresh approver (a resumed run's). */
function readLater(ticket: string, action: ApprovalAction) {
  return readOne(makeApprover(), ticket, action, makeContext({ allowPending: true }));
}

/** `GET` of the interaction answering `reply`, counting the reads. */
function interactionReads(reply: Record<string, unknown>) {
  const reads = { count: 0 };
  nock(base)
    .persist()
    .get(interactionPath)
    .reply(200, () => {
      reads.count += 1;
      return reply;
    });
  return reads;
}

describe("MessagingApprover in durable mode", () => {
  it("asks without reading, and a read reads the answer once: pending while nobody answered", async () => {
    const action = deleteCallbacksAction();
    const sent: Record<string, unknown>[] = [];
    const reads = interactionReads(interaction("pending"));
    const ticket = await askedTicket(action, sent);
    expect(reads.count).toBe(0);
    // The person may answer long after this process is gone: a day, not the wait timeout.
    expect(sent[0]?.expires_in_s).toBe(86_400);

    expect(await readLater(ticket, action)).toEqual({ outcome: "pending", interactionId });
    expect(reads.count).toBe(1);
  });

  it("reads an approval with a fresh approver, without sending anything, the same each time", async () => {
    // The approver holds no record of its own: the agent spends an approval
    // when its call starts (a worker that read it and died before leaves it
    // unspent, even for a later resume in this same process).
    const action = deleteCallbacksAction();
    const ticket = await askedTicket(action);
    const send = nock(base).post("/v1/messages").reply(200, {});
    interactionReads(answered("approve", { fingerprint: action.fingerprint }));
    const approved = {
      outcome: "approved",
      fingerprint: action.fingerprint,
      interactionId,
      approvedBy: `subscription link ${linkId}`,
      approverLink: linkId,
      questionDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    };
    expect(await readLater(ticket, action)).toEqual(approved);
    expect(await readLater(ticket, action)).toEqual(approved);
    expect(send.isDone()).toBe(false);
  });

  it("trusts the recorded fingerprint when the service returns no metadata", async () => {
    const action = deleteCallbacksAction();
    const ticket = await askedTicket(action);
    interactionReads(answered("approve"));
    expect((await readLater(ticket, action)).outcome).toBe("approved");
  });

  it("refuses a denial read later", async () => {
    const action = deleteCallbacksAction();
    const ticket = await askedTicket(action);
    interactionReads(answered("deny", { text: "wrong account" }));
    const decision = await readLater(ticket, action);
    expect(decision).toMatchObject({ outcome: "refused", code: "denied", interactionId });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toContain("wrong account");
  });

  it("reads a failed delivery through the message the question was sent in", async () => {
    const action = deleteCallbacksAction();
    const ticket = await askedTicket(action);
    interactionReads(interaction("failed"));
    nock(base)
      .get(messagePath)
      .reply(200, { message_id: messageId, state: "failed", error: { message: "bot removed" } });
    const decision = await readLater(ticket, action);
    expect(decision).toMatchObject({ outcome: "refused", code: "delivery_failed" });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toContain("bot removed");
  });

  it("refuses when the call to run now has other arguments than the ones asked about", async () => {
    const asked = deleteCallbacksAction();
    const now = deleteCallbacksAction({ callback_ids: ["changed"] });
    expect(now.approvalId).toBe(asked.approvalId);
    const ticket = await askedTicket(asked);
    interactionReads(answered("approve"));
    const decision = await readLater(ticket, now);
    expect(decision).toMatchObject({ outcome: "refused", code: "fingerprint_mismatch" });
  });

  it("refuses when the interaction's metadata names other arguments", async () => {
    const action = deleteCallbacksAction();
    const other = deleteCallbacksAction({ callback_ids: ["other"] });
    const ticket = await askedTicket(action);
    interactionReads(answered("approve", { fingerprint: other.fingerprint }));
    const decision = await readLater(ticket, action);
    expect(decision).toMatchObject({ outcome: "refused", code: "fingerprint_mismatch" });
  });

  it.each([
    ["of another message", { message_id: "m_of_another_question" }],
    ["naming no message", { message_id: undefined }],
  ])("refuses an approval read from an interaction %s", async (_name, naming) => {
    const action = deleteCallbacksAction();
    const ticket = await askedTicket(action);
    interactionReads({ ...answered("approve", { fingerprint: action.fingerprint }), ...naming });
    const decision = await readLater(ticket, action);
    expect(decision).toMatchObject({ outcome: "refused", code: "messaging_error", interactionId });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toContain(`not to message "${messageId}"`);
  });

  it("approves when the service echoes the question it was sent, its text and its metadata", async () => {
    const action = deleteCallbacksAction();
    const sent: Record<string, unknown>[] = [];
    const ticket = await askedTicket(action, sent);
    const [question] = sent;
    expect(question?.metadata).toMatchObject({
      question_digest: textDigest(String(question?.text)),
    });
    interactionReads({
      ...answered("approve"),
      text: question?.text,
      metadata: question?.metadata,
    });
    expect(await readLater(ticket, action)).toMatchObject({ outcome: "approved" });
  });

  it.each([
    ["another question's text", { text: "Delete every callback?" }],
    ["another question's digest", { metadata: { question_digest: textDigest("Another?") } }],
    ["a digest that is not text", { metadata: { question_digest: 7 } }],
  ])("refuses an approval from an interaction echoing %s", async (_name, echo) => {
    const action = deleteCallbacksAction();
    const ticket = await askedTicket(action);
    interactionReads({ ...answered("approve"), ...echo });
    const decision = await readLater(ticket, action);
    expect(decision).toMatchObject({ outcome: "refused", code: "messaging_error" });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toContain(
      `interaction "${interactionId}" carries another question than the one sent about "delete_callbacks"`,
    );
  });

  describe("an interaction bound to its question in the run store", () => {
    const runStore = () => new InMemoryRunStore();
    const binder =
      (store: InMemoryRunStore, runId: string) =>
      (binding: { approverLink: string; interactionId: string; question: string }) =>
        store.bindInteraction({ ...binding, runId });
    /** A read by a resumed run whose agent binds through `bindInteraction`. */
    const readWith = (
      ticket: string,
      action: ApprovalAction,
      bindInteraction: NonNullable<ApprovalContext["bindInteraction"]>,
      allowPending = true,
    ) => readOne(makeApprover(), ticket, action, makeContext({ allowPending, bindInteraction }));

    /** Asks about `action` as run_1 of an agent keeping `store` does. */
    async function askBinding(action: ApprovalAction, store: InMemoryRunStore) {
      nockReady();
      nockSend();
      const bindInteraction = binder(store, "run_1");
      const context = makeContext({ allowPending: true, runId: "run_1", bindInteraction });
      return makeApprover().ask([action], context);
    }

    it("binds it when asked, and reads its answer without binding again", async () => {
      const store = runStore();
      const action = deleteCallbacksAction();
      const ticket = await askBinding(action, store);
      expect(JSON.parse(ticket).questions[0].sent[0]).toMatchObject({ interactionId, bound: true });
      expect(
        await store.bindInteraction({
          approverLink: linkId,
          interactionId,
          question: "sha256:another",
          runId: "run_2",
        }),
      ).toEqual({ outcome: "taken", runId: "run_1" });
      interactionReads(answered("approve"));
      const failing = () => Promise.reject(new Error("not called: the ticket says it is bound"));
      expect(await readWith(ticket, action, failing)).toMatchObject({ outcome: "approved" });
    });

    it("refuses the question when the interaction the service hands out holds another question, and leaves that question's message alone", async () => {
      const store = runStore();
      await store.bindInteraction({
        approverLink: linkId,
        interactionId,
        question: "sha256:the-first-question",
        runId: "run_0",
      });
      const cancel = nock(base)
        .post(cancelPath)
        .reply(200, { message_id: messageId, state: "canceled" });
      const action = deleteCallbacksAction();
      const ticket = await askBinding(action, store);
      const decision = await readWith(ticket, action, binder(store, "run_1"));
      expect(decision).toMatchObject({ outcome: "refused", code: "messaging_error" });
      if (decision.outcome !== "refused") throw new Error("unreachable");
      expect(decision.reason).toContain(
        `under interaction "${interactionId}" of link "${linkId}", which already holds another question`,
      );
      // The message is the other question's: it is not withdrawn.
      expect(cancel.isDone()).toBe(false);
    });

    it("binds a question asked without a store at its first read: another question's interaction approves nothing; while the store fails, the answer stays pending", async () => {
      const action = deleteCallbacksAction();
      const ticket = await askedTicket(action);
      expect(JSON.parse(ticket).questions[0].sent[0].bound).toBeUndefined();
      interactionReads(answered("approve"));

      const failing = () => Promise.reject(new Error("ECONNREFUSED 127.0.0.1:5432"));
      expect(await readWith(ticket, action, failing)).toMatchObject({ outcome: "pending" });
      expect(await readWith(ticket, action, failing, false)).toMatchObject({
        outcome: "refused",
        code: "messaging_error",
        reason: expect.stringContaining("could not be checked in the run store"),
      });

      const mine = runStore();
      expect(await readWith(ticket, action, binder(mine, "run_1"))).toMatchObject({
        outcome: "approved",
      });
      const theirs = runStore();
      await theirs.bindInteraction({
        approverLink: linkId,
        interactionId,
        question: "sha256:the-first-question",
        runId: "run_0",
      });
      const decision = await readWith(ticket, action, binder(theirs, "run_1"));
      expect(decision).toMatchObject({
        outcome: "refused",
        code: "messaging_error",
        interactionId,
      });
      if (decision.outcome !== "refused") throw new Error("unreachable");
      expect(decision.reason).toContain(
        `interaction "${interactionId}" of link "${linkId}" holds another question than the one asked about "delete_callbacks"`,
      );
    });
  });

  it("refuses an action the ticket did not ask about, without reading any answer", async () => {
    const asked = deleteCallbacksAction();
    const other = { ...deleteCallbacksAction(), approvalId: "run.approval-of-another-call" };
    const ticket = await askedTicket(asked);
    const reads = interactionReads(answered("approve", { fingerprint: asked.fingerprint }));
    const decision = await readLater(ticket, other);
    expect(decision).toMatchObject({ outcome: "refused", code: "messaging_error" });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toContain("was not asked under the ticket");
    expect(reads.count).toBe(0);
  });

  it("refuses a ticket it did not write", async () => {
    const action = deleteCallbacksAction();
    const reads = interactionReads(answered("approve", { fingerprint: action.fingerprint }));
    for (const ticket of ["", interactionId, JSON.stringify({ questions: [{ items: "all" }] })]) {
      expect(await readLater(ticket, action)).toMatchObject({
        outcome: "refused",
        code: "messaging_error",
      });
    }
    expect(reads.count).toBe(0);
  });

  it("stays pending when the answer cannot be read, rather than refuse what the person may have approved", async () => {
    const action = deleteCallbacksAction();
    const ticket = await askedTicket(action);
    nock(base).get(interactionPath).reply(500, "boom");
    expect(await readLater(ticket, action)).toEqual({ outcome: "pending", interactionId });
  });

  it("peeks without deciding: pending while open, with its expiry; not pending once answered", async () => {
    const action = deleteCallbacksAction();
    const ticket = await askedTicket(action);
    const signal = new AbortController().signal;
    nock(base)
      .get(interactionPath)
      .reply(200, interaction("pending", { expires_at: "2030-01-01T00:00:00Z" }))
      .get(interactionPath)
      .reply(200, answered("deny"));
    expect(await makeApprover().peek(ticket, [action.approvalId], { signal })).toEqual({
      pending: true,
      expiresAt: new Date("2030-01-01T00:00:00Z"),
    });
    expect(await makeApprover().peek(ticket, [action.approvalId], { signal })).toEqual({
      pending: false,
    });
    expect(nock.pendingMocks()).toEqual([]);
  });
});
