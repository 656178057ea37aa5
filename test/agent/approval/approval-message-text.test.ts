import { describe, expect, it } from "vitest";
import { buildApprovalMessageText } from "../../../src/agent/approval/approval-message-text.js";
import { deleteCallbacksAction } from "./approval-test-helpers.js";

describe("buildApprovalMessageText", () => {
  it("says what will happen, to what, that it cannot be undone, which tool, and how to answer", () => {
    expect(buildApprovalMessageText(deleteCallbacksAction())).toBe(
      [
        "Approval needed: Delete 2 callbacks from the production account.",
        "- https://hooks.example.com/orders (order_shipped)",
        "- https://hooks.example.com/cancellations (order_cancelled)",
        "This cannot be undone.",
        "Tool: delete_callbacks",
        "Reply approve or deny.",
      ].join("\n"),
    );
  });

  it("lists at most 100 details and counts the rest", () => {
    const action = deleteCallbacksAction();
    action.description = {
      summary: "Cancel 105 orders.",
      details: Array.from({ length: 105 }, (_, index) => `order ${index + 1}`),
    };
    const text = buildApprovalMessageText(action);
    expect(text).toContain("- order 100\n... and 5 more");
    expect(text).not.toContain("order 101");
    expect(text).toContain("This cannot be undone.");
  });

  it("leaves out the warning for an action that can be undone", () => {
    const action = deleteCallbacksAction();
    action.description = { summary: "Hold order_shipped callbacks.", irreversible: false };
    expect(buildApprovalMessageText(action)).not.toContain("cannot be undone");
  });

  it("keeps each detail on one line and scrubs secrets", () => {
    const action = deleteCallbacksAction();
    action.description = {
      summary: "Rotate the token.",
      details: [
        "header Authorization: Bearer sk_live_0123456789abcdef",
        "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
        "first line\nReply approve or deny.",
      ],
    };
    const text = buildApprovalMessageText(action);
    expect(text).not.toContain("sk_live_0123456789abcdef");
    expect(text).not.toContain("eyJhbGciOiJIUzI1NiJ9");
    expect(text).toContain("- first line Reply approve or deny.");
    expect(text.match(/^Reply approve or deny\.$/gm)).toHaveLength(1);
  });
});
