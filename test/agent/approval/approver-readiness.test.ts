import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { askOne } from "../../helpers/approver-verbs.js";
import {
  answered,
  base,
  deleteCallbacksAction,
  interactionPath,
  linkId,
  makeApprover,
  makeContext,
  nockReady,
  nockSend,
} from "./approval-test-helpers.js";

const linkPath = `/v1/subscription-links/${linkId}`;

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

async function refusal(approver = makeApprover()) {
  const decision = (await askOne(approver, deleteCallbacksAction(), makeContext())).decision;
  if (decision.outcome !== "refused")
    throw new Error(`expected a refusal, got ${decision.outcome}`);
  return decision;
}

describe("MessagingApprover readiness", () => {
  it("refuses without sending while the subscription link is still pending, saying how to fix it", async () => {
    nockReady({ state: "pending" });
    const send = nock(base).post("/v1/messages").reply(200, {});
    const decision = await refusal();
    expect(decision.code).toBe("approver_unavailable");
    expect(decision.reason).toContain(`"${linkId}" is still pending`);
    expect(decision.reason).toContain("open it on the approver's device");
    expect(decision.reason).not.toContain("https://consent.example/abc");
    expect(send.isDone()).toBe(false);
  });

  it.each(["expired", "revoked"])(
    "refuses a %s link, pointing to POST /v1/subscription-links",
    async (state) => {
      nockReady({ state });
      const decision = await refusal();
      expect(decision.code).toBe("approver_unavailable");
      expect(decision.reason).toContain(`is ${state}, not active`);
      expect(decision.reason).toContain("POST /v1/subscription-links");
      expect(decision.reason).toContain("subscriptionLinkId");
    },
  );

  it("refuses an unknown link", async () => {
    nock(base)
      .get("/v1/capabilities")
      .reply(200, { features: ["interactions"] })
      .get(linkPath)
      .reply(404, { error: { message: "no such link" } });
    const decision = await refusal();
    expect(decision.code).toBe("approver_unavailable");
    expect(decision.reason).toContain(`"${linkId}" does not exist`);
  });

  it("refuses when the provider lacks interactions, naming what it offers", async () => {
    nockReady({ state: "active" }, ["notifications"]);
    const decision = await refusal();
    expect(decision.code).toBe("approver_unavailable");
    expect(decision.reason).toContain(
      "does not support interactions (its features: notifications)",
    );
  });

  it("names both problems when the link is inactive and interactions are missing", async () => {
    nockReady({ state: "revoked" }, []);
    const decision = await refusal();
    expect(decision.reason).toContain("is revoked");
    expect(decision.reason).toContain("its features: none");
  });

  it("refuses with the redacted error when the service fails during the check", async () => {
    nock(base)
      .get("/v1/capabilities")
      .reply(503, "down for maintenance, Bearer abcdef0123456789")
      .get(linkPath)
      .reply(200, { subscription_link_id: linkId, state: "active" });
    const decision = await refusal();
    expect(decision.code).toBe("messaging_error");
    expect(decision.reason).toContain("down for maintenance");
    expect(decision.reason).not.toContain("abcdef0123456789");
  });

  it("checks once and remembers a success", async () => {
    const action = deleteCallbacksAction();
    const readiness = nockReady();
    nockSend();
    nockSend();
    nock(base)
      .get(interactionPath)
      .reply(200, answered("approve", { fingerprint: action.fingerprint }));
    const approver = makeApprover();
    const first = (await askOne(approver, action, makeContext())).decision;
    const second = (
      await askOne(approver, deleteCallbacksAction({ callback_ids: ["other"] }), makeContext())
    ).decision;
    expect(readiness.isDone()).toBe(true);
    expect(first.outcome).toBe("approved");
    // The fake service names the second question as the first: its answer is not read for it.
    expect(second).toMatchObject({ outcome: "refused", code: "messaging_error" });
    expect(nock.pendingMocks()).toEqual([]);
  });

  it("checks again after a failed check", async () => {
    const action = deleteCallbacksAction();
    nockReady({ state: "pending" });
    nockReady({ state: "active" });
    nockSend();
    nock(base).get(interactionPath).reply(200, answered("approve"));
    const approver = makeApprover();
    expect((await askOne(approver, action, makeContext())).decision.outcome).toBe("refused");
    expect((await askOne(approver, action, makeContext())).decision).toMatchObject({
      outcome: "approved",
      fingerprint: action.fingerprint,
    });
  });
});
