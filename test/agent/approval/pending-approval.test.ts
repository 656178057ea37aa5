import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalAction } from "../../../src/agent/approver.js";
import {
  answered,
  base,
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

function pendingOf(action: ApprovalAction) {
  return { fingerprint: action.fingerprint, interactionId, action };
}

describe("MessagingApprover in durable mode", () => {
  it("returns pending as soon as the question is out, without reading the answer", async () => {
    const action = deleteCallbacksAction();
    nockReady();
    const sent: Record<string, unknown>[] = [];
    nockSend(sent);
    const reads = nock(base).get(interactionPath).reply(200, interaction("pending"));
    const decision = await makeApprover().requestApproval(
      action,
      makeContext({ allowPending: true, runId: "run_1" }),
    );
    expect(decision).toEqual({
      outcome: "pending",
      fingerprint: action.fingerprint,
      interactionId,
    });
    expect(reads.isDone()).toBe(false);
    // The person may answer long after this process is gone: a day, not the wait timeout.
    expect(sent[0]?.expires_in_s).toBe(86_400);
  });

  it("reads an approval with a fresh approver, without sending anything, the same each time", async () => {
    // The approver holds no record of its own: the agent spends an approval
    // when its call starts (a worker that read it and died before leaves it
    // unspent, even for a later resume in this same process).
    const action = deleteCallbacksAction();
    const send = nock(base).post("/v1/messages").reply(200, {});
    nock(base)
      .get(interactionPath)
      .twice()
      .reply(200, answered("approve", { fingerprint: action.fingerprint }));
    const approver = makeApprover();
    const approved = {
      outcome: "approved",
      fingerprint: action.fingerprint,
      interactionId,
      approvedBy: `subscription link ${linkId}`,
      approverLink: expect.any(String),
      questionDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    };
    expect(await approver.checkApproval(pendingOf(action), makeContext())).toEqual(approved);
    expect(await approver.checkApproval(pendingOf(action), makeContext())).toEqual(approved);
    expect(send.isDone()).toBe(false);
  });

  it("trusts the recorded fingerprint when the service returns no metadata", async () => {
    const action = deleteCallbacksAction();
    nock(base).get(interactionPath).reply(200, answered("approve"));
    const decision = await makeApprover().checkApproval(pendingOf(action), makeContext());
    expect(decision.outcome).toBe("approved");
  });

  it("answers pending again while nobody has answered", async () => {
    const action = deleteCallbacksAction();
    nock(base).get(interactionPath).reply(200, interaction("pending"));
    const decision = await makeApprover().checkApproval(pendingOf(action), makeContext());
    expect(decision).toEqual({
      outcome: "pending",
      fingerprint: action.fingerprint,
      interactionId,
    });
  });

  it("refuses a denial read later", async () => {
    const action = deleteCallbacksAction();
    nock(base)
      .get(interactionPath)
      .reply(200, answered("deny", { text: "wrong account" }));
    const decision = await makeApprover().checkApproval(pendingOf(action), makeContext());
    expect(decision).toMatchObject({ outcome: "refused", code: "denied", interactionId });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toContain("wrong account");
  });

  it("reads a failed delivery through the message named by the interaction", async () => {
    const action = deleteCallbacksAction();
    nock(base)
      .get(interactionPath)
      .reply(200, interaction("failed"))
      .get(messagePath)
      .reply(200, { message_id: messageId, state: "failed", error: { message: "bot removed" } });
    const decision = await makeApprover().checkApproval(pendingOf(action), makeContext());
    expect(decision).toMatchObject({ outcome: "refused", code: "delivery_failed" });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toContain("bot removed");
  });

  it("refuses when the call to run now has other arguments than the recorded approval", async () => {
    const asked = deleteCallbacksAction();
    const now = deleteCallbacksAction({ callback_ids: ["changed"] });
    const reads = nock(base).get(interactionPath).reply(200, answered("approve"));
    const decision = await makeApprover().checkApproval(
      { fingerprint: asked.fingerprint, interactionId, action: now },
      makeContext(),
    );
    expect(decision).toMatchObject({ outcome: "refused", code: "fingerprint_mismatch" });
    expect(reads.isDone()).toBe(false);
  });

  it("refuses when the interaction's metadata names other arguments", async () => {
    const action = deleteCallbacksAction();
    const other = deleteCallbacksAction({ callback_ids: ["other"] });
    nock(base)
      .get(interactionPath)
      .reply(200, answered("approve", { fingerprint: other.fingerprint }));
    const decision = await makeApprover().checkApproval(pendingOf(action), makeContext());
    expect(decision).toMatchObject({ outcome: "refused", code: "fingerprint_mismatch" });
  });

  it("binds to what this approver asked: an approval of its question for other arguments does not carry over", async () => {
    const asked = deleteCallbacksAction();
    const other = deleteCallbacksAction({ callback_ids: ["other"] });
    nockReady();
    nockSend();
    nock(base).get(interactionPath).reply(200, answered("approve"));
    const approver = makeApprover();
    await approver.requestApproval(asked, makeContext({ allowPending: true }));
    const decision = await approver.checkApproval(
      { fingerprint: other.fingerprint, interactionId, action: other },
      makeContext(),
    );
    expect(decision).toMatchObject({ outcome: "refused", code: "fingerprint_mismatch" });
  });

  it("refuses with messaging_error when the answer cannot be read", async () => {
    const action = deleteCallbacksAction();
    nock(base).get(interactionPath).reply(500, "boom");
    const decision = await makeApprover().checkApproval(pendingOf(action), makeContext());
    expect(decision).toMatchObject({ outcome: "refused", code: "messaging_error" });
  });
});
