import { ConfigurationError } from "../errors/configuration-error.js";
import { missingMethods } from "../internal/missing-methods.js";
import { attachSecrets, secretsOf } from "../internal/redact.js";
import type { AnyTool, NeedsApproval, ToolApprovalRule, ToolTarget } from "./tool.js";

/**
 * Per-tool approval policy of a tool set: for each tool name, `true`, `false`
 * or a function of that tool's arguments. Tools left out keep their default.
 *
 * @example
 * { needsApproval: { update_orders: true, delete_callbacks: (args) => args.callback_ids.length > 1 } }
 */
export type ToolApprovalPolicy<ArgumentsByName> = {
  [Name in keyof ArgumentsByName]?: NeedsApproval<ArgumentsByName[Name]>;
};

/** Options every tool set (`orderTools`, `docsTools`, `messagingTools`) takes. */
export interface ToolSetOptions<ArgumentsByName> {
  /**
   * Changes whether a tool needs a human's approval; see each set's default
   * policy. It may add approval (`true`) or decide per call (a function); it
   * cannot turn a default approval off with `false`: that is
   * `runWithoutApproval`. Each becomes a rule of the agent's approval policy,
   * named `<set>: needsApproval` (e.g. `orderTools: needsApproval`) in the
   * decisions it makes; the policy's own rules win over it.
   */
  needsApproval?: ToolApprovalPolicy<ArgumentsByName> | undefined;
  /**
   * Tools whose default approval is turned off: their calls run without
   * asking anyone. Each becomes an `allow` rule of the agent's approval
   * policy, named `<set>: runWithoutApproval` (e.g. `orderTools:
   * runWithoutApproval`) in every call's approval record and audit record;
   * a `deny` or `ask` rule of the policy wins over it. The agent logs each
   * tool at warn level, once, and lists them in `agent.ungatedTools`.
   *
   * @example
   * orderTools(orders, { runWithoutApproval: ["update_orders"] })
   */
  runWithoutApproval?: ReadonlyArray<keyof ArgumentsByName & string> | undefined;
}

/** The rules a tool set's options make about its tools, by tool name. */
export type ToolSetApprovalRules<ArgumentsByName> = {
  [Name in keyof ArgumentsByName]?: ToolApprovalRule<ArgumentsByName[Name]>[];
};

/**
 * The rules a tool set's options make, by tool: `needsApproval` (a value
 * other than the default) and `runWithoutApproval` (for a tool that would
 * otherwise ask), named `<set>: needsApproval` and `<set>:
 * runWithoutApproval`; the agent's approval policy compiles them. Throws a
 * ConfigurationError naming every unknown tool name, every value that is
 * neither a boolean nor a function, and every `false` that would turn a
 * default approval off.
 */
export function toolSetApprovalRules<ArgumentsByName>(
  setName: string,
  defaults: Readonly<Record<keyof ArgumentsByName, boolean>>,
  options: ToolSetOptions<ArgumentsByName> | undefined,
): ToolSetApprovalRules<ArgumentsByName> {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new ConfigurationError(`${setName}: options must be an object such as { needsApproval }`);
  }
  const overrides: unknown = options?.needsApproval;
  const turnedOff: unknown = options?.runWithoutApproval;
  const rules: Record<string, ToolApprovalRule[]> = {};
  const add = (name: string, rule: ToolApprovalRule) => {
    rules[name] ??= [];
    rules[name].push(rule);
  };
  const defaultOf = (name: string) => defaults[name as keyof ArgumentsByName];
  const names = Object.keys(defaults);
  const problems: string[] = [];
  if (overrides !== undefined) {
    if (typeof overrides !== "object" || overrides === null || Array.isArray(overrides)) {
      throw new ConfigurationError(
        `${setName}: needsApproval must be an object mapping tool names to true, false or a function of the arguments`,
      );
    }
    for (const [name, value] of Object.entries(overrides)) {
      if (value === undefined) continue;
      if (!names.includes(name)) {
        problems.push(
          `${setName}: needsApproval names "${name}", which is not one of its tools (${names.join(", ")})`,
        );
      } else if (typeof value !== "boolean" && typeof value !== "function") {
        problems.push(
          `${setName}: needsApproval.${name} must be true, false or a function of the arguments, got ${value === null ? "null" : typeof value}`,
        );
      } else if (value === false && defaultOf(name) === true) {
        problems.push(
          `${setName}: needsApproval.${name}: false would turn off an approval that is on by default; to let ${name} run without asking anyone, say so with { runWithoutApproval: ["${name}"] }`,
        );
      } else {
        const rule = needsApprovalRule(`${setName}: needsApproval`, value, defaultOf(name));
        if (rule) add(name, rule);
      }
    }
  }
  if (turnedOff !== undefined) {
    if (!Array.isArray(turnedOff)) {
      problems.push(
        `${setName}: runWithoutApproval must be an array of tool names, e.g. ["${names[0]}"]`,
      );
    } else {
      for (const name of turnedOff) {
        if (typeof name !== "string" || !names.includes(name)) {
          problems.push(
            `${setName}: runWithoutApproval names ${JSON.stringify(name)}, which is not one of its tools (${names.join(", ")})`,
          );
        } else if (defaultOf(name) === true || rules[name] !== undefined) {
          // A tool that would not ask anyway needs no rule (and no record of one).
          add(name, { name: `${setName}: runWithoutApproval`, decide: "allow" });
        }
      }
    }
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return rules as ToolSetApprovalRules<ArgumentsByName>;
}

/**
 * The rule a `needsApproval` option makes about a tool whose default is
 * `asksByDefault`: a function decides each call (`ask` unless it answers
 * `false`), `true` asks and `false` allows; none when the value is the
 * default, which decides anyway.
 */
export function needsApprovalRule<Args>(
  name: string,
  value: NeedsApproval<Args>,
  asksByDefault: boolean,
): ToolApprovalRule<Args> | undefined {
  if (typeof value === "function") {
    return { name, decide: async (args) => ((await value(args)) !== false ? "ask" : "allow") };
  }
  if (value === asksByDefault) return undefined;
  return { name, decide: value ? "ask" : "allow" };
}

/**
 * Checks that a client handed to a tool set has the methods its tools call,
 * so a wrong object fails when the tools are built, not mid-run.
 */
export function checkToolSetClient(
  setName: string,
  client: unknown,
  methods: readonly string[],
  example: string,
): void {
  if (typeof client !== "object" || client === null) {
    throw new ConfigurationError(`${setName} needs a client, e.g. ${example}`);
  }
  const missing = missingMethods(client, methods);
  if (missing.length > 0) {
    throw new ConfigurationError(
      `${setName}: the client lacks the method(s) ${missing.join(", ")}; pass ${example}`,
    );
  }
}

/**
 * The tools of a set, each with the set's `target` (where its calls act)
 * and the rules its options make about it (`approvalRules`). Typed by the
 * set's tool names (one tool each), so `hasToolCall` can check them.
 */
export function finishToolSet<ArgumentsByName>(
  tools: readonly AnyTool[],
  rules: ToolSetApprovalRules<ArgumentsByName>,
  target: ToolTarget,
): AnyTool<keyof ArgumentsByName & string>[] {
  const byName = rules as Record<string, ToolApprovalRule[] | undefined>;
  return tools.map((tool) => {
    const approvalRules = byName[tool.name];
    return Object.freeze({
      ...tool,
      target: Object.freeze({ ...target }),
      ...(approvalRules ? { approvalRules: Object.freeze([...approvalRules]) } : {}),
    });
  }) as AnyTool<keyof ArgumentsByName & string>[];
}

/**
 * Where a client's calls go, from its `baseUrl` when it has one: the host,
 * and the first path segment as the account when `accountInPath`.
 */
export function clientTarget(
  service: string,
  client: unknown,
  extra: { accountInPath?: boolean; environment?: unknown } = {},
): ToolTarget {
  const target: ToolTarget = { service };
  const baseUrl = (client as { baseUrl?: unknown }).baseUrl;
  if (typeof baseUrl === "string") {
    try {
      const url = new URL(baseUrl);
      target.address = url.host;
      const account = url.pathname.split("/").find((segment) => segment !== "");
      if (extra.accountInPath === true && account !== undefined) {
        target.account = decodeURIComponent(account);
      }
    } catch {
      // A client without a parseable address is named by its service only.
    }
  }
  if (typeof extra.environment === "string" && extra.environment !== "") {
    target.environment = extra.environment;
  }
  return target;
}

/**
 * The tools of a set, each carrying its client's secrets (token, phrases,
 * callback tokens), so an agent given them redacts those secrets too.
 */
export function withClientSecrets<Tools extends AnyTool[]>(client: unknown, tools: Tools): Tools {
  const secrets = secretsOf(client);
  for (const tool of tools) attachSecrets(tool, secrets);
  return tools;
}
