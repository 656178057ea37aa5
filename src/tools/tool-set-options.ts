import { ConfigurationError } from "../errors/configuration-error.js";
import { attachSecrets, secretsOf } from "../internal/redact.js";
import type { AnyTool, NeedsApproval, ToolTarget } from "./tool.js";

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
   * `runWithoutApproval`.
   */
  needsApproval?: ToolApprovalPolicy<ArgumentsByName> | undefined;
  /**
   * Tools whose default approval is turned off: their calls run without
   * asking anyone. The agent logs each at warn level, once, and lists them
   * in `agent.ungatedTools`.
   *
   * @example
   * orderTools(orders, { runWithoutApproval: ["update_orders"] })
   */
  runWithoutApproval?: ReadonlyArray<keyof ArgumentsByName & string> | undefined;
}

/** The policy of every tool of a set, defaults filled in. */
export type ResolvedApprovalPolicy<ArgumentsByName> = {
  [Name in keyof ArgumentsByName]: NeedsApproval<ArgumentsByName[Name]>;
};

/**
 * The policy each tool of a set is built with: the set's defaults overridden
 * by `options.needsApproval`, and turned off for the tools in
 * `options.runWithoutApproval`. Throws a ConfigurationError naming every
 * unknown tool name, every value that is neither a boolean nor a function,
 * and every `false` that would turn a default approval off.
 */
export function resolveApprovalPolicy<ArgumentsByName>(
  setName: string,
  defaults: Readonly<Record<keyof ArgumentsByName, boolean>>,
  options: ToolSetOptions<ArgumentsByName> | undefined,
): ResolvedApprovalPolicy<ArgumentsByName> {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new ConfigurationError(`${setName}: options must be an object such as { needsApproval }`);
  }
  const overrides: unknown = options?.needsApproval;
  const turnedOff: unknown = options?.runWithoutApproval;
  const policy: Record<string, unknown> = { ...defaults };
  const resolved = policy as ResolvedApprovalPolicy<ArgumentsByName>;
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
      } else if (value === false && defaults[name as keyof ArgumentsByName] === true) {
        problems.push(
          `${setName}: needsApproval.${name}: false would turn off an approval that is on by default; to let ${name} run without asking anyone, say so with { runWithoutApproval: ["${name}"] }`,
        );
      } else {
        policy[name] = value;
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
        } else policy[name] = false;
      }
    }
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return resolved;
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
  const missing = methods.filter(
    (method) => typeof (client as Record<string, unknown>)[method] !== "function",
  );
  if (missing.length > 0) {
    throw new ConfigurationError(
      `${setName}: the client lacks the method(s) ${missing.join(", ")}; pass ${example}`,
    );
  }
}

/**
 * The tools of a set, each with the set's `target` (where its calls act)
 * and, for the tools of `options.runWithoutApproval` that are gated by
 * default, the mark the agent warns about. Typed by the set's tool names
 * (the keys of its defaults, one tool each), so `hasToolCall` can check them.
 */
export function finishToolSet<ArgumentsByName>(
  tools: readonly AnyTool[],
  defaults: Readonly<Record<keyof ArgumentsByName, boolean>>,
  options: ToolSetOptions<ArgumentsByName> | undefined,
  target: ToolTarget,
): AnyTool<keyof ArgumentsByName & string>[] {
  const turnedOff = new Set<string>(
    (options?.runWithoutApproval ?? []).filter(
      (name) => defaults[name as keyof ArgumentsByName] === true,
    ),
  );
  return tools.map((tool) =>
    Object.freeze({
      ...tool,
      target: Object.freeze({ ...target }),
      ...(turnedOff.has(tool.name) ? { defaultApprovalTurnedOff: true } : {}),
    }),
  ) as AnyTool<keyof ArgumentsByName & string>[];
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
