import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { interruptForAction } from "../../../src/ag-ui/interrupt-for-action.js";
import { type ActionView, buildActionView } from "../../../src/agent/approval/action-view.js";
import type { ApprovalAction } from "../../../src/agent/approver.js";
import { showApprovalAction } from "../../../src/agent/build-approval-action.js";
import { buildApprovalMessageText } from "../../../src/approvers/messaging/approval-message-text.js";
import { planBatchQuestions } from "../../../src/approvers/messaging/batch-question-text.js";
import { textDigest } from "../../../src/internal/canonical-json.js";
import { isSecretKey, SecretRegistry } from "../../../src/internal/redact.js";
import { escapeHtml, readShownText } from "../../../src/internal/untrusted-text.js";
import { elicitationMessage } from "../../../src/mcp/elicitation-approver.js";
import { renderQuestionPage } from "../../../src/simulators/messaging/render-approval-pages.js";
import { terminalAnswerer } from "../../../src/simulators/messaging/terminal-answerer.js";
import type { ToolTarget } from "../../../src/tools/tool.js";

// Characters of every class that could change how a question reads: controls, ANSI, bidi and
// zero-width format characters, separators, combining marks, look-alike quotes and spaces, a lone
// surrogate, a character beyond U+FFFF, a Cyrillic look-alike letter, the escape characters.
const nasty = fc.constantFrom(
  "\x00",
  "\x1b[2K",
  "\x7f",
  "\x9b",
  "\n",
  "\r",
  "\t",
  "\u202e",
  "\u2066",
  "\u200b",
  "\u200d",
  "\ufeff",
  "\u00ad",
  "\u{e0041}",
  "\u2028",
  "\u2029",
  "\u0301",
  "\u0336",
  "\u20dd",
  "\uff02",
  "\u201c",
  "\u3164",
  "\u2800",
  "\u00a0",
  "\u3000",
  "     ",
  "\ud800",
  "\udfff",
  "\u{1f600}",
  "\u0430",
  "é",
  '"',
  "\\",
  "\\u0041",
  "\\x1b",
  "[redacted]",
  "'",
  "<",
  "&",
  "%2F",
);
const text = fc
  .array(
    fc.oneof(nasty, fc.string({ maxLength: 8 }), fc.string({ unit: "binary", maxLength: 4 })),
    {
      maxLength: 6,
    },
  )
  .map((parts) => parts.join(""));
const label = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
// Host labels shaped like what the redaction patterns look for: a JWT, an `sk-` key, a bearer word.
const host = fc.oneof(
  label,
  label.map((part) => `eyJhbGciOiJub25lIn0.${part}`),
  label.map((part) => `sk-${part}${"a".repeat(16)}`),
  text.map((part) => `ex${part}ample`),
);
const url = fc
  .tuple(host, fc.array(fc.oneof(label, text), { maxLength: 3 }), fc.option(text))
  .map(
    ([name, path, query]) => `https://${name}.net/${path.join("/")}${query ? `?q=${query}` : ""}`,
  );
const longText = fc.string({ minLength: 300, maxLength: 900 });
const leaf = fc.oneof(
  { weight: 4, arbitrary: text },
  { weight: 3, arbitrary: url },
  { weight: 1, arbitrary: longText },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);
const key = fc.oneof(
  text,
  fc.constantFrom("url", "id", "token", "password", "amount", "__proto__"),
);
const tree = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("node"), { maxLength: 3 }),
    fc.dictionary(key, tie("node"), { maxKeys: 3 }),
  ),
})).node;
// Secrets of the application's own: quotes, backslashes, line breaks and `\u` escapes in them.
const secret = fc
  .tuple(
    fc.constantFrom('"', "\\", "\n", "\\u0041", "'", "&<", " "),
    fc.stringMatching(/^[A-Za-z0-9]{6,10}$/),
  )
  .map(([odd, rest]) => `Zq7${rest}${odd}k`);

interface Generated {
  args: Record<string, unknown>;
  target?: ToolTarget;
  secrets: string[];
}

const generated: fc.Arbitrary<Generated> = fc
  .record({
    args: fc.dictionary(key, tree, { minKeys: 1, maxKeys: 4 }),
    target: fc.option(
      fc.record(
        {
          service: text,
          address: host,
          account: text,
          environment: fc.constantFrom("sandbox", "production"),
        },
        { requiredKeys: ["service"] },
      ),
      { nil: undefined },
    ),
    secrets: fc.array(secret, { minLength: 1, maxLength: 3 }),
    // Where a secret goes: nowhere, a value of its own, the account, or inside a host.
    place: fc.constantFrom("none", "value", "account", "inside"),
  })
  .map(({ args, target, secrets, place }) => {
    const [first] = secrets as [string];
    const placed = { ...args };
    if (place === "value") placed.key = first;
    if (place === "inside") placed.callback = `https://${first}.attacker.net/orders`;
    const where = target && place === "account" ? { ...target, account: first } : target;
    return { args: placed, ...(where ? { target: where } : {}), secrets };
  });

/** The action a tool would describe: its summary, and a detail quoting each string argument. */
function actionOf({ args, target }: Generated): ApprovalAction {
  const strings = Object.entries(args).filter(
    (entry): entry is [string, string] => typeof entry[1] === "string",
  );
  return {
    approvalId: "run_1.abc",
    toolName: "create_callbacks",
    toolCallId: "call_1",
    fingerprint: "sha256:00",
    arguments: args,
    description: {
      summary: "Create the callbacks below.",
      details: strings.map(([, value]) => ({ label: "value", value })),
    },
    ...(target ? { target } : {}),
  };
}

function registryOf(secrets: readonly string[]): SecretRegistry {
  return new SecretRegistry().add(...secrets);
}

/** Every form a secret may be written in on a channel. */
function secretForms(value: string): string[] {
  const unicode = [...value]
    .flatMap((character) => [...character].map((unit) => unit.charCodeAt(0)))
    .map((code) => `\\u${code.toString(16).padStart(4, "0")}`)
    .join("");
  return [
    value,
    JSON.stringify(value).slice(1, -1),
    JSON.stringify(JSON.stringify(value)).slice(1, -1),
    unicode,
    unicode.toUpperCase().replaceAll("\\U", "\\u"),
    encodeURIComponent(value),
    escapeHtml(value),
  ];
}

function holdsSecret(value: unknown, secrets: readonly string[]): boolean {
  const texts: string[] = [];
  const walk = (inner: unknown) => {
    if (typeof inner === "string") texts.push(inner);
    else if (Array.isArray(inner)) inner.forEach(walk);
    else if (inner !== null && typeof inner === "object") {
      for (const [name, item] of Object.entries(inner)) {
        texts.push(name);
        walk(item);
      }
    }
  };
  walk(value);
  return texts.some((text) =>
    secrets.some((secret) => secretForms(secret).some((form) => text.includes(form))),
  );
}

// ---- reading a rendering back, undoing only the view's escaping ----

const quoted = String.raw`"((?:[^"\\]|\\.)*)"`;

function argumentsIn(rendering: string): unknown {
  const lines = rendering.split("\n");
  const start = lines.findIndex((line) => line.trim() === "Arguments (JSON):");
  const json: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const match = /^\s*\| (.*)$/.exec(line);
    if (!match) break;
    json.push(match[1] ?? "");
  }
  return JSON.parse(json.join("\n"));
}

function targetIn(rendering: string): ToolTarget | undefined {
  const line = rendering.split("\n").find((candidate) => candidate.trim().startsWith("Where: "));
  if (line === undefined) return undefined;
  const match = new RegExp(
    `^Where: service ${quoted}(?: at ${quoted})?(?:, account ${quoted})?(?:, environment ${quoted}(?: \\(PRODUCTION\\))?)?$`,
  ).exec(line.trim());
  if (!match) throw new Error(`the Where line does not parse: ${line}`);
  const [, service, address, account, environment] = match.map((part) =>
    part === undefined ? undefined : readShownText(part),
  );
  return {
    service: service ?? "",
    ...(address !== undefined ? { address } : {}),
    ...(account !== undefined ? { account } : {}),
    ...(environment !== undefined ? { environment } : {}),
  };
}

function detailValuesIn(rendering: string): string[] {
  return rendering
    .split("\n")
    .map((line) => new RegExp(`^\\s*- value: ${quoted}$`).exec(line)?.[1])
    .filter((value): value is string => value !== undefined)
    .map(readShownText);
}

/** What the page shows as text: its question block with the tags taken out and HTML read. */
function pageText(html: string): string {
  const block = /<div class="text">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? "";
  return block
    .replace(/<[^>]*>/g, "")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");
}

async function terminalText(question: string): Promise<string> {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  const answerer = terminalAnswerer({ input, output });
  const answered = answerer({
    interaction_id: "i_1",
    message_id: "m_1",
    subscription_link_id: "sl_1",
    text: question,
    options: [
      { id: "approve", label: "Approve" },
      { id: "deny", label: "Deny" },
    ],
    metadata: {},
  });
  input.end();
  await answered;
  answerer.close();
  return printed;
}

/** Every channel's rendering of one action, as a person (or a client) receives it. */
async function renderings(action: ApprovalAction): Promise<Record<string, string>> {
  const unlimited = { maxLength: Number.MAX_SAFE_INTEGER };
  const question = buildApprovalMessageText(action, unlimited);
  const interrupt = interruptForAction(action, action.approvalId);
  const [batch] = planBatchQuestions([action, { ...action, toolCallId: "call_2" }], {
    choice: true,
    ...unlimited,
  });
  const page = renderQuestionPage(
    {
      subscription_link_id: "sl_1",
      url: "http://x/",
      state: "active",
      created_at: "2026-01-01T00:00:00Z",
    },
    {
      interaction_id: "i_1",
      message_id: "m_1",
      subscription_link_id: "sl_1",
      state: "pending",
      text: question,
      options: [{ id: "approve", label: "Approve" }],
      metadata: {},
      created_at: "2026-01-01T00:00:00Z",
    },
    { formToken: "t", now: new Date("2026-01-01T00:00:00Z") },
  );
  return {
    messaging: question,
    "messaging (one message)": buildApprovalMessageText(action),
    "messaging digest": textDigest(question),
    batch: batch?.text ?? "",
    "ag-ui message": interrupt.message ?? "",
    "ag-ui wire": JSON.stringify(interrupt),
    elicitation: elicitationMessage(action),
    page: pageText(page),
    "page html": page,
    terminal: await terminalText(question),
  };
}

const actsOnText = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{M}\p{Cs}\u3164\u2800\uff02\u201c]/u;
const cutNotice = /\[(Some long lines are cut above|This question is too long for one message)/;

// The renderings a person reads whole, from which every value must read back.
const readable = ["messaging", "ag-ui message", "elicitation", "page", "terminal"] as const;

async function shownAction(
  input: Generated,
): Promise<{ action: ApprovalAction; view: ActionView } | undefined> {
  const raw = actionOf(input);
  const built = buildActionView(raw, registryOf(input.secrets).values());
  if (!("view" in built)) {
    // The gate refuses to ask only when a secret really sits inside something the person would read.
    expect(holdsSecret({ args: raw.arguments, target: raw.target }, input.secrets)).toBe(true);
    return undefined;
  }
  const action = showApprovalAction({ ...raw, view: built.view }, registryOf(input.secrets));
  return { action, view: built.view };
}

describe("every channel renders the one view of an action (properties)", () => {
  it("shows every value that is not a secret exactly, and no registered secret in any encoding", async () => {
    const seen = { refused: 0, shown: 0, readBack: 0 };
    await fc.assert(
      fc.asyncProperty(generated, async (input) => {
        const shown = await shownAction(input);
        if (!shown) {
          seen.refused += 1;
          return;
        }
        seen.shown += 1;
        const { action, view } = shown;
        const rendered = await renderings(action);
        for (const [channel, rendering] of Object.entries(rendered)) {
          for (const value of input.secrets) {
            for (const form of secretForms(value)) {
              expect(rendering.includes(form), `${channel} holds a secret as ${form}`).toBe(false);
            }
          }
        }
        const details = (action.description.details ?? []).map((detail) =>
          typeof detail === "string" ? detail : (detail.value ?? ""),
        );
        for (const channel of readable) {
          const rendering = rendered[channel] ?? "";
          // The messaging service takes lines of a bounded length: a cut question says so.
          if (cutNotice.test(rendering)) {
            expect(channel).toMatch(/^(messaging|page|terminal)$/);
            continue;
          }
          // Nothing that acts on the text around it reaches the person: it is written out.
          expect(rendering.replaceAll("\n", ""), channel).not.toMatch(actsOnText);
          // As JSON has them: -0 is 0 there, in the fingerprint as in every rendering.
          expect(argumentsIn(rendering), channel).toEqual(asJson(view.values.arguments));
          expect(targetIn(rendering), channel).toEqual(asJson(view.values.target));
          expect(detailValuesIn(rendering), channel).toEqual(details);
          seen.readBack += 1;
        }
        const metadata = (action && interruptForAction(action, "i").metadata?.switchyard) as Record<
          string,
          unknown
        >;
        expect(metadata.arguments).toEqual(view.values.arguments);
        expect(metadata.target).toEqual(view.values.target);
        // Nothing but a secret is hidden: the arguments shown are the real ones, secrets aside.
        expect(hideSecrets(input.args, input.secrets)).toEqual(view.values.arguments);
      }),
      { numRuns: 60 },
    );
    // The property was checked, not skipped: most actions are shown, and read back on most channels.
    expect(seen.shown).toBeGreaterThan(30);
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.readBack).toBeGreaterThan(seen.shown * 3);
  });

  it("renders two actions that differ in any value differently, on every channel", async () => {
    const pair = generated.chain((input) =>
      fc.tuple(fc.constantFrom(...Object.keys(input.args)), nasty).map(([name, extra]) => ({
        input,
        other: {
          ...input,
          args: { ...input.args, [name]: `${JSON.stringify(input.args[name])}${extra}` },
        },
      })),
    );
    await fc.assert(
      fc.asyncProperty(pair, async ({ input, other }) => {
        const first = await shownAction(input);
        const second = await shownAction(other);
        if (!first || !second) return;
        if (JSON.stringify(first.view.values) === JSON.stringify(second.view.values)) return;
        const one = await renderings(first.action);
        const two = await renderings(second.action);
        for (const channel of [...readable, "messaging digest", "ag-ui wire"]) {
          expect(one[channel], channel).not.toBe(two[channel]);
        }
        // A batch question holds only actions shown whole; one that is not goes alone.
        if (one.batch !== "" && two.batch !== "") expect(one.batch).not.toBe(two.batch);
      }),
      { numRuns: 40 },
    );
  });
});

/** The arguments with only what the view hides replaced: registered secrets and secret-named fields. */
function hideSecrets(value: unknown, secrets: readonly string[], name?: string): unknown {
  if (
    name !== undefined &&
    isSecretKey(name) &&
    value !== null &&
    value !== undefined &&
    value !== ""
  ) {
    return `[redacted] secret field ${name}`;
  }
  if (typeof value === "string") {
    return secrets.some((secret) => secretForms(secret).includes(value))
      ? "[redacted] registered secret"
      : value;
  }
  if (Array.isArray(value)) return value.map((item) => hideSecrets(item, secrets));
  if (value === null || typeof value !== "object") return value;
  const result: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    Object.defineProperty(result, key, {
      value: hideSecrets(inner, secrets, key),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

describe("the reported cases, on every channel", () => {
  it("shows a JWT-shaped host as it is, and several callbacks each with its own host", async () => {
    const hosts = ["attacker-exfil", "second-exfil", "third-exfil"].map(
      (name) => `https://eyJhbGciOiJub25lIn0.${name}.net/hook`,
    );
    const shown = await shownAction({
      args: { urls: hosts, url: hosts[0] },
      secrets: ["Zq7unused-k"],
    });
    if (!shown) throw new Error("the gate refused to ask");
    const rendered = await renderings(shown.action);
    for (const channel of readable) {
      for (const host of hosts) expect(rendered[channel], channel).toContain(host);
      expect(rendered[channel], channel).not.toContain("[redacted]");
    }
  });

  it("shows a registered secret in the target as its placeholder, in the interrupt and on the Where line", async () => {
    const account = "Zq7acct-0042";
    const shown = await shownAction({
      args: { id: "cb_1" },
      target: { service: "orders", account, environment: "production" },
      secrets: [account],
    });
    if (!shown) throw new Error("the gate refused to ask");
    const interrupt = interruptForAction(shown.action, "i_1");
    expect(interrupt.message).toContain(
      'Where: service "orders", account "[redacted] registered secret", environment "production" (PRODUCTION)',
    );
    expect(interrupt.metadata?.switchyard).toMatchObject({
      target: { service: "orders", account: "[redacted] registered secret" },
    });
    const rendered = await renderings(shown.action);
    for (const [channel, rendering] of Object.entries(rendered)) {
      expect(rendering.includes(account), channel).toBe(false);
    }
  });

  it("keeps a secret with a quote, a backslash and a line break out of the elicitation question", async () => {
    const key = 'Zq7a"b\\c\nd\\u0041';
    const shown = await shownAction({ args: { key, note: "rotate" }, secrets: [key] });
    if (!shown) throw new Error("the gate refused to ask");
    const message = elicitationMessage(shown.action);
    expect(message).toContain('"key": "[redacted] registered secret"');
    for (const form of secretForms(key)) expect(message.includes(form)).toBe(false);
  });

  it("refuses, naming where, when a registered secret sits inside a host", async () => {
    const key = "Zq7hostkey-9";
    const built = buildActionView(
      actionOf({ args: { url: `https://${key}.attacker.net/orders` }, secrets: [key] }),
      registryOf([key]).values(),
    );
    expect(built).toEqual({ secretInside: "the argument url" });
  });
});

/** A value as JSON holds it (`-0` becomes `0`). */
function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
