import { describe, expect, it } from "vitest";
import {
  IssuedApprovals,
  keptAfterExpiryMs,
} from "../../../src/agent/approval/issued-approvals.js";

const entry = (toolCallId: string, expiresAt: number) => ({
  approvalId: `approval-${toolCallId}`,
  toolName: "delete_callbacks",
  toolCallId,
  fingerprint: `fingerprint-${toolCallId}`,
  args: { callback_ids: [toolCallId] },
  expiresAt,
  requestedAt: new Date(expiresAt - 60_000),
});

describe("IssuedApprovals", () => {
  it("remembers a spent approval past its expiry, so a replay is refused as already used", () => {
    const issued = new IssuedApprovals();
    const expiresAt = Date.now() + 60_000;
    issued.issue(entry("call_1", expiresAt));
    expect("usable" in issued.take("delete_callbacks", "call_1", "fingerprint-call_1")).toBe(true);
    // A day after expiry the entry is still there: asking again finds it spent.
    const again = issued.issue(entry("call_1", expiresAt + 1), expiresAt + keptAfterExpiryMs);
    expect(again.state).toBe("spent");
    const replay = issued.check("delete_callbacks", "call_1", "fingerprint-call_1");
    expect("refused" in replay && replay.refused.code).toBe("already_used");
  });

  it("forgets entries a day past their expiry, oldest first, keeping the rest", () => {
    const issued = new IssuedApprovals();
    issued.issue(entry("call_old", 1_000), 0);
    issued.issue(entry("call_new", 5_000), 0);
    issued.issue(entry("call_next", 10_000), 1_000 + keptAfterExpiryMs + 1);
    expect(issued.find("delete_callbacks", "call_old")).toBeUndefined();
    expect(issued.find("delete_callbacks", "call_new")?.state).toBe("issued");
    // An approval of the forgotten call that comes back is refused as never asked for here.
    const late = issued.check("delete_callbacks", "call_old", "fingerprint-call_old");
    expect("refused" in late && late.refused.code).toBe("invalid_decision");
  });
});
