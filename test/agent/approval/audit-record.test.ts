import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalAuditRecord } from "../../../src/agent/approval/approval-audit-record.js";
import {
  answered,
  base,
  captureLogger,
  deleteCallbacksAction,
  interactionId,
  interactionPath,
  makeApprover,
  makeContext,
  nockReady,
  nockSend,
  secretPhrase,
} from "./approval-test-helpers.js";

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

describe("MessagingApprover audit records", () => {
  it("logs and hands over one record per decision, with the fingerprint and never the arguments", async () => {
    const action = deleteCallbacksAction();
    const records: ApprovalAuditRecord[] = [];
    const sent: Record<string, unknown>[] = [];
    const { logger, lines } = captureLogger();
    nockReady();
    nockSend(sent);
    nockSend(sent, "i_2");
    nock(base)
      .get(interactionPath)
      .reply(200, answered("approve"))
      .get("/v1/interactions/i_2")
      .reply(200, { ...answered("deny", { text: "no" }), interaction_id: "i_2" });
    const approver = makeApprover({ logger, onDecision: (record) => void records.push(record) });

    await approver.requestApproval(action, makeContext({ runId: "run_3" }));
    await approver.requestApproval(action, makeContext({ runId: "run_3" }));

    expect(records).toHaveLength(2);
    expect(records[0]).toEqual({
      action: "delete_callbacks",
      toolCallId: "call_1",
      runId: "run_3",
      fingerprint: action.fingerprint,
      interactionId,
      outcome: "approved",
      approverLink: expect.any(String),
      questionDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      requestedAt: expect.any(String),
      decidedAt: expect.any(String),
    });
    // The person's outcome and note, not the instructions the model is given with them.
    expect(records[1]).toMatchObject({
      outcome: "refused",
      code: "denied",
      reason: 'The approver denied "delete_callbacks". Their note: "no".',
      note: "no",
    });
    expect(JSON.stringify(records)).not.toMatch(/Do not|unless the user asks/);
    for (const record of records) {
      expect(Date.parse(record.decidedAt)).toBeGreaterThanOrEqual(Date.parse(record.requestedAt));
    }
    const auditLines = lines.filter((line) => line.msg === "approval decision");
    expect(auditLines).toHaveLength(2);
    expect(auditLines[0]).toMatchObject({
      level: 30,
      component: "messaging-approver",
      ...records[0],
    });
    const everything = JSON.stringify([records, lines, sent]);
    expect(everything).not.toContain(secretPhrase);
    expect(everything).not.toContain("messaging-token-5678");
  });

  it("records refusals before any question is sent, and survives a failing onDecision", async () => {
    const { logger, lines } = captureLogger();
    nockReady({ state: "revoked" });
    const decision = await makeApprover({
      logger,
      onDecision: () => {
        throw new Error("audit store offline");
      },
    }).requestApproval(deleteCallbacksAction(), makeContext());
    expect(decision).toMatchObject({ outcome: "refused", code: "approver_unavailable" });
    const audit = lines.find((line) => line.msg === "approval decision");
    expect(audit).toMatchObject({ outcome: "refused", code: "approver_unavailable" });
    expect(audit).not.toHaveProperty("interactionId");
    expect(lines.some((line) => String(line.msg).startsWith("onDecision failed"))).toBe(true);
  });

  it("logs to the context's logger when the approver has none", async () => {
    const { logger, lines } = captureLogger();
    nockReady({ state: "pending" });
    await makeApprover().requestApproval(deleteCallbacksAction(), makeContext({ logger }));
    expect(lines.filter((line) => line.msg === "approval decision")).toHaveLength(1);
  });
});
