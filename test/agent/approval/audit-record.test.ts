import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { askOne } from "../../helpers/approver-verbs.js";
import {
  answered,
  base,
  captureLogger,
  deleteCallbacksAction,
  interactionId,
  interactionPath,
  linkId,
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

describe("MessagingApprover and the audit trail", () => {
  it("names where each answer came from, and writes no audit record of its own (the agent does)", async () => {
    const action = deleteCallbacksAction();
    const sent: Record<string, unknown>[] = [];
    const { logger, lines } = captureLogger();
    nockReady();
    nockSend(sent);
    nock(base).get(interactionPath).reply(200, answered("approve"));
    const { decision } = await askOne(
      makeApprover({ logger }),
      action,
      makeContext({ runId: "run_3" }),
    );
    expect(decision).toMatchObject({
      outcome: "approved",
      fingerprint: action.fingerprint,
      interactionId,
      approverLink: linkId,
      questionDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(lines.filter((line) => line.msg === "approval decision")).toEqual([]);
    const everything = JSON.stringify([decision, lines, sent]);
    expect(everything).not.toContain(secretPhrase);
    expect(everything).not.toContain("messaging-token-5678");
  });

  it("refuses onDecision, the approver's old hook, saying what replaced it", () => {
    const options = { onDecision: () => {} } as Parameters<typeof makeApprover>[0];
    expect(() => makeApprover(options)).toThrow(ConfigurationError);
    expect(() => makeApprover(options)).toThrow(/onApprovalDecided/);
  });
});
