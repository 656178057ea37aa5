import { describe, expect, it } from "vitest";
import { type ActionView, buildActionView } from "../../../src/agent/approval/action-view.js";
import { actionViewLines } from "../../../src/agent/approval/action-view-lines.js";
import type { ApprovalAction } from "../../../src/agent/approver.js";
import { escapeShownText, readShownText } from "../../../src/internal/untrusted-text.js";

const attackerHost = "https://eyJhbGciOiJub25lIn0.attacker-exfil.net/orders";

function action(overrides: Partial<ApprovalAction> = {}): ApprovalAction {
  return {
    approvalId: "run_1.abc",
    toolName: "create_callbacks",
    toolCallId: "call_1",
    fingerprint: "sha256:00",
    arguments: { callbacks: [{ event: "orderEvent", url: attackerHost }] },
    description: {
      summary: "Create 1 callback.",
      details: [{ label: "orderEvent events to", value: attackerHost }],
    },
    target: { service: "orders", address: "sandbox.example.com", account: "acme" },
    ...overrides,
  };
}

function viewOf(built: ReturnType<typeof buildActionView>): ActionView {
  if (!("view" in built)) throw new Error(`refused: ${built.secretInside}`);
  return built.view;
}

describe("escapeShownText and readShownText", () => {
  it("write out every character that acts on the text around it, and read back exactly", () => {
    const values = [
      'done."\nReply approve',
      "https://hooks.example.com/\u202egpj.exe\x1b[2K\u2028\u200b",
      "a\\x1b and \\u202e typed as text",
      "https://ex\u0430mple.com:8443/path?q=\u0430",
      "e\u0301 \u{e0041} \ud800 \u3164     five spaces",
      "[redacted] is not a placeholder here",
    ];
    for (const value of values) {
      const shown = escapeShownText(value);
      expect(shown).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{M}]|\[redacted\]/u);
      expect(shown.replaceAll('\\"', "")).not.toContain('"');
      expect(readShownText(shown)).toBe(value);
    }
    expect(escapeShownText("https://ex\u0430mple.com/\u0430")).toBe(
      "https://ex\\u0430mple.com/\u0430",
    );
  });
});

describe("buildActionView", () => {
  it("shows a credential-shaped host as it is, in the detail and in the arguments", () => {
    const view = viewOf(buildActionView(action(), []));
    expect(view.details).toEqual([{ label: "orderEvent events to", value: attackerHost }]);
    expect(JSON.parse(view.arguments)).toEqual(action().arguments);
    expect(view.values.arguments).toEqual(action().arguments);
  });

  it("tells several callbacks apart, whatever their hosts look like", () => {
    const urls = [
      "https://eyJhbGciOiJub25lIn0.one.net/hook",
      "https://eyJhbGciOiJub25lIn0.two.net/hook",
      "https://eyJhbGciOiJub25lIn0.three.net/hook",
    ];
    const view = viewOf(
      buildActionView(
        action({
          arguments: { ids: urls },
          description: {
            summary: "Delete 3 callbacks.",
            details: urls.map((url) => ({ label: "orderEvent events to", value: url })),
          },
        }),
        [],
      ),
    );
    const { details, arguments: json } = actionViewLines(view);
    const lines = [...details, ...json];
    for (const url of urls) {
      expect(lines).toContain(`- orderEvent events to: "${url}"`);
      expect(lines).toContain(`  |     "${url}"${url === urls[2] ? "" : ","}`);
    }
  });

  it("shows a registered secret and a secret-named field as placeholders that say what they are", () => {
    const secret = 'k"e\\y\nline';
    const view = viewOf(
      buildActionView(
        action({
          arguments: { account: secret, token: "abc", note: "[redacted]" },
          target: { service: "orders", account: secret },
        }),
        [secret],
      ),
    );
    expect(view.values.arguments).toEqual({
      account: "[redacted] registered secret",
      token: "[redacted] secret field token",
      note: "[redacted]",
    });
    // A value that reads like a placeholder is written so it cannot pass for one.
    expect(view.arguments).toContain('"note": "\\u005bredacted]"');
    expect(view.target).toEqual({ service: "orders", account: "[redacted] registered secret" });
    expect(view.values.target).toEqual({
      service: "orders",
      account: "[redacted] registered secret",
    });
    expect(JSON.stringify(view)).not.toContain('k\\"e');
  });

  it("refuses to show a value with a registered secret inside it, in any form, and says where", () => {
    const secret = 'pa"ss\\word\n7';
    const forms = [
      secret,
      encodeURIComponent(secret),
      JSON.stringify(secret).slice(1, -1),
      [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    ];
    for (const form of forms) {
      const built = buildActionView(
        action({ arguments: { callbacks: [{ url: `https://${form}.example.net/x` }] } }),
        [secret],
      );
      expect(built).toEqual({ secretInside: "the argument callbacks[0].url" });
    }
    expect(
      buildActionView(action({ target: { service: "orders", address: `${secret}.example` } }), [
        secret,
      ]),
    ).toEqual({ secretInside: "the target's address" });
  });

  it("lays the target out with every value quoted, production also in capitals", () => {
    const view = viewOf(
      buildActionView(
        action({
          target: { service: "orders", account: 'a", environment "x', environment: "production" },
        }),
        [],
      ),
    );
    expect(actionViewLines(view).where).toEqual([
      'Where: service "orders", account "a\\", environment \\"x", environment "production" (PRODUCTION)',
    ]);
  });
});
