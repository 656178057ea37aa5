import { describe, expect, it } from "vitest";
import { redactArgumentsText } from "../../src/agent/durable/redact-run-state.js";
import { resolveOutputSchema } from "../../src/agent/structured-output.js";
import { checkDocsBaseUrl } from "../../src/clients/docs/docs-base-url.js";
import { candidatePaths } from "../../src/clients/docs/operation-reference.js";
import { resolveOrderBaseUrl } from "../../src/clients/orders/order-base-url.js";
import { redactText } from "../../src/internal/redact.js";
import { escapeUntrustedLines, escapeUntrustedText } from "../../src/internal/untrusted-text.js";
import { withoutTrailingSlashes } from "../../src/internal/without-trailing-slashes.js";
import { renderQuestionPage } from "../../src/simulators/messaging/render-approval-pages.js";
import { callbackCleanupScenario } from "../../src/simulators/reasoner/scenario-callback-cleanup.js";
import { customToolScenario } from "../../src/simulators/reasoner/scenario-custom-tool.js";
import { docsEditScenario } from "../../src/simulators/reasoner/scenario-docs-edit.js";
import type { ReceivedChatRequest } from "../../src/simulators/reasoner/scripted-answer.js";
import { conversation, tools } from "../simulators/reasoner-test-helpers.js";

// Each input below made a backtracking pattern rescan the text once per
// character (minutes for a megabyte); read once, each takes milliseconds.
// Nothing here measures time: the test timeout is the only bound.
const megabyte = 1_000_000;
const repeated = (unit: string, length = megabyte) => unit.repeat(Math.ceil(length / unit.length));

function catchMessage(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    return (error as Error).message;
  }
  return "";
}

describe("patterns read large adversarial text in linear time", () => {
  it("redactText: the URL-credentials and JWT patterns, with the secrets after the attack still removed", () => {
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";
    for (const attack of [repeated("a."), repeated("eyJ"), repeated("a-"), repeated("1.")]) {
      const text = `${attack} https://user:hunter22@api.example/v1 Bearer ${jwt}`;
      const redacted = redactText(text);
      expect(redacted.startsWith(attack)).toBe(true);
      expect(redacted.slice(attack.length)).toBe(
        " https://[redacted]@api.example/v1 Bearer [redacted]",
      );
    }
  });

  it("redactText still finds a JWT and URL credentials as before", () => {
    expect(redactText("token=eyJabc.def.ghi;")).toBe("token=[redacted];");
    expect(redactText("x-https://u:p@h and git+ssh://me@host")).toBe(
      "x-https://[redacted]@h and git+ssh://[redacted]@host",
    );
    // A scheme must start a word: "1https" is not one.
    expect(redactText("1https://u:p@h")).toBe("1https://u:p@h");
  });

  it("escapeUntrustedText and escapeUntrustedLines: the URL-host pattern", () => {
    const attack = repeated("a.");
    const url = "https://\u0430pple.com/path";
    expect(escapeUntrustedText(`${attack} ${url}`)).toBe(`${attack} https://xn--pple-43d.com/path`);
    expect(escapeUntrustedLines(`${attack}\n${url}`)).toBe(
      `${attack}\nhttps://xn--pple-43d.com/path`,
    );
  });

  it("redactArgumentsText: a run of backslashes in arguments that are not JSON", () => {
    const attack = repeated("\\");
    const text = `{${attack} "token": "sk-live-value", "note": "kept"`;
    const redacted = redactArgumentsText(text, []);
    expect(redacted.endsWith('"token": "[redacted]", "note": "kept"')).toBe(true);
  });

  it("a model's answer in a code fence that never closes", () => {
    const output = resolveOutputSchema({
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
      additionalProperties: false,
    });
    const read = output.read(`\`\`\`json${repeated("\n")}x`);
    expect(read.success).toBe(false);
    expect(output.read('```json\n{"answer": "yes"}\n```')).toEqual({
      success: true,
      value: { answer: "yes" },
    });
  });

  it("base URLs ending in a run of slashes followed by something else", () => {
    const slashes = repeated("/");
    expect(withoutTrailingSlashes(`https://a.example/v1${slashes}`)).toBe("https://a.example/v1");
    expect(withoutTrailingSlashes(`${slashes}x`)).toBe(`${slashes}x`);
    const docsProblem = catchMessage(() => checkDocsBaseUrl(`https://docs.example/${slashes}x`));
    expect(docsProblem.endsWith(`use https://docs.example/${slashes}x/cli/v1`)).toBe(true);
    const problems: string[] = [];
    resolveOrderBaseUrl({ host: `orders.example${slashes}!`, accountSlug: "acme" }, problems);
    expect(problems.length).toBeGreaterThan(0);
    expect(
      candidatePaths(`https://api.example/v1/orders?${repeated("?")}\n`, [
        `https://api.example/v1${slashes}`,
      ]),
    ).toEqual(["/orders", "/v1/orders"]);
  });

  it("the inbox page's URL pattern", () => {
    const attack = repeated("a.");
    const html = renderQuestionPage(
      { subscription_link_id: "link-1", url: "", state: "active", created_at: "" },
      {
        interaction_id: "interaction-1",
        message_id: "message-1",
        subscription_link_id: "link-1",
        state: "pending",
        text: `${attack} https://hooks.example/a`,
        options: [],
        metadata: {},
        created_at: new Date(0).toISOString(),
      },
      { formToken: "token", now: new Date(0) },
    );
    expect(html).toContain(
      `${attack} <span class="url">https://<span class="host">hooks.example</span>/<wbr>a</span>`,
    );
  });

  const chatRequest = (task: string, offered: string[]): ReceivedChatRequest =>
    ({ model: "simulated", messages: conversation(task), tools: tools(...offered) }) as never;

  it("the reasoner simulator's scenarios read a long task", () => {
    const cleanup = callbackCleanupScenario(
      chatRequest(
        `${repeated("a-")} Remove every callback that points at hooks.old-warehouse.example.`,
        ["list_callbacks", "delete_callbacks"],
      ),
    );
    expect(JSON.stringify(cleanup)).toContain("list_callbacks");

    const discount = customToolScenario(
      chatRequest(`${repeated("1")} Give order ORD-1042 a 15% discount because it shipped late.`, [
        "apply_discount",
      ]),
    );
    const discountText = JSON.stringify(discount);
    expect(discountText).toContain("ORD-1042");
    expect(discountText).toContain("15");
    expect(discountText).toContain("it shipped late");

    const edit = docsEditScenario(
      chatRequest(`${repeated("\u201c")} In docs/intro.md replace${repeated(" ")}x`, [
        "list_documentations",
        "edit_docs_file",
      ]),
    );
    expect(JSON.stringify(edit)).toContain("list_documentations");
  });
});
