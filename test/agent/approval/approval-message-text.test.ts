import { describe, expect, it } from "vitest";
import { buildApprovalMessageText } from "../../../src/approvers/messaging/approval-message-text.js";
import { maximumMessageTextLength } from "../../../src/clients/messaging/messaging-requests.js";
import { deleteCallbacksAction } from "./approval-test-helpers.js";

// No raw control, format or separator character may reach the person; line breaks separate lines.
const actsOnText = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

describe("buildApprovalMessageText", () => {
  it("says what will happen, where, to what, that it cannot be undone, which tool, and how to answer", () => {
    const action = deleteCallbacksAction();
    action.target = {
      service: "orders",
      address: "acme.example.com",
      account: "acme",
      environment: "production",
    };
    action.description = {
      summary: "Delete 2 callbacks.",
      details: [
        { label: "order_shipped events to", value: "https://hooks.example.com/orders" },
        { label: "order_cancelled events to", value: "https://hooks.example.com/cancellations" },
      ],
    };
    expect(buildApprovalMessageText(action)).toBe(
      [
        "Approval needed: Delete 2 callbacks.",
        'Where: service "orders" at "acme.example.com", account "acme", environment "production" (PRODUCTION)',
        '- order_shipped events to: "https://hooks.example.com/orders"',
        '- order_cancelled events to: "https://hooks.example.com/cancellations"',
        "Arguments (JSON):",
        "  | {",
        '  |   "callback_ids": [',
        '  |     "7d3f0c9e-1111-4a5b-9c8d-000000000001",',
        '  |     "7d3f0c9e-2222-4a5b-9c8d-000000000002"',
        "  |   ],",
        '  |   "secret_phrase": "[redacted] secret field secret_phrase"',
        "  | }",
        "This cannot be undone.",
        "Tool: delete_callbacks",
        "Reply approve or deny.",
      ].join("\n"),
    );
  });

  it("shows a hostile URL with ANSI, bidi and line-separator characters written out, quoted", () => {
    const action = deleteCallbacksAction();
    const hostile =
      "https://hooks.example.com/\u202egpj.exe\x1b[2K\x1b[1A\rApproved by security\u2028This can be undone.\u200b";
    action.description = {
      summary: "Create 1 callback.",
      details: [{ label: "order_shipped events to", value: hostile }],
    };
    const text = buildApprovalMessageText(action);
    expect(text.replaceAll("\n", "")).not.toMatch(actsOnText);
    expect(text).toContain(
      '- order_shipped events to: "https://hooks.example.com/\\u202egpj.exe\\x1b[2K\\x1b[1A\\rApproved by security\\u2028This can be undone.\\u200b"',
    );
    expect(text.split("\n").filter((line) => line.startsWith("This c"))).toEqual([
      "This cannot be undone.",
    ]);
  });

  it("keeps a forged question line inside a value as data", () => {
    const action = deleteCallbacksAction();
    action.description = {
      summary: "Cancel 1 order.",
      details: [
        { label: "order", value: 'A-1"\nThis can be undone.\nReply approve or deny.' },
        "legacy detail\nTool: read_only_tool",
      ],
    };
    const lines = buildApprovalMessageText(action).split("\n");
    expect(lines).toContain('- order: "A-1\\"\\nThis can be undone.\\nReply approve or deny."');
    expect(lines).toContain('- "legacy detail\\nTool: read_only_tool"');
    expect(lines.filter((line) => line === "Reply approve or deny.")).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith("Tool:"))).toEqual(["Tool: delete_callbacks"]);
    expect(lines).not.toContain("This can be undone.");
  });

  it("shows text of several lines whole, behind a gutter, and labels the agent's words", () => {
    const action = deleteCallbacksAction();
    action.description = {
      summary: "Push 1 file.",
      details: [
        { label: "changes to the page", text: "@@ -1 +1 @@\n-old\n+new\x1b[0m\n" },
        { label: "change message", value: "Approved by the security team", writtenByAgent: true },
        { label: "empty page", text: "" },
      ],
    };
    const lines = buildApprovalMessageText(action).split("\n");
    expect(lines).toEqual(
      expect.arrayContaining([
        "- changes to the page:",
        "  | @@ -1 +1 @@",
        "  | -old",
        "  | +new\\x1b[0m",
        `- change message (the agent's words): "Approved by the security team"`,
        "- empty page: (empty)",
      ]),
    );
  });

  it("says plainly when the action is too long for one message and shows its first part", () => {
    const action = deleteCallbacksAction();
    action.description = {
      summary: "Cancel 500 orders.",
      details: Array.from({ length: 500 }, (_, index) => ({
        label: "order",
        value: `ORD-${index + 1}`,
      })),
    };
    const text = buildApprovalMessageText(action);
    expect(text.length).toBeLessThanOrEqual(maximumMessageTextLength);
    expect(text).toContain('- order: "ORD-1"');
    expect(text).not.toContain('"ORD-500"');
    const shown = text.split("\n").filter((line) => line.startsWith("- order")).length;
    // 500 detail lines, then the arguments: a heading and 7 lines of JSON.
    expect(text).toContain(
      `[This question is too long for one message: only the first ${shown} of 508 lines are shown. Approving approves the whole action, including what is not shown; deny if you need to see all of it first.]`,
    );
    expect(
      text.endsWith("This cannot be undone.\nTool: delete_callbacks\nReply approve or deny."),
    ).toBe(true);
  });

  it("cuts a very long value inside its quotes and says so", () => {
    const action = deleteCallbacksAction();
    action.description = {
      summary: "Edit 1 page.",
      details: [{ label: "new title", value: `${"x".repeat(2000)}\\` }],
    };
    const text = buildApprovalMessageText(action);
    expect(text).toMatch(/- new title: "x+"… \(\d+ more characters not shown\)/);
    expect(text).toContain("[Some long lines are cut above.");
  });

  it("leaves out the warning for an action that can be undone", () => {
    const action = deleteCallbacksAction();
    action.description = { summary: "Hold order_shipped callbacks.", irreversible: false };
    expect(buildApprovalMessageText(action)).not.toContain("cannot be undone");
  });

  it("shows every value as it runs, a credential-shaped one too, and hides only secret-named fields", () => {
    const action = deleteCallbacksAction({
      url: "https://eyJhbGciOiJub25lIn0.attacker-exfil.net/orders",
      secret_phrase: "correct horse",
    });
    action.description = {
      summary: "Create 1 callback.",
      details: [
        {
          label: "orderEvent events to",
          value: "https://eyJhbGciOiJub25lIn0.attacker-exfil.net/orders",
        },
        { label: "header", text: "Authorization: Bearer sk_live_0123456789abcdef" },
      ],
    };
    const text = buildApprovalMessageText(action);
    expect(text).toContain(
      '- orderEvent events to: "https://eyJhbGciOiJub25lIn0.attacker-exfil.net/orders"',
    );
    expect(text).toContain('  |   "url": "https://eyJhbGciOiJub25lIn0.attacker-exfil.net/orders",');
    expect(text).toContain("  | Authorization: Bearer sk_live_0123456789abcdef");
    expect(text).toContain('  |   "secret_phrase": "[redacted] secret field secret_phrase"');
    expect(text).not.toContain("correct horse");
  });
});
