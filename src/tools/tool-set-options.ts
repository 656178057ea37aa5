import { ConfigurationError } from "../errors/configuration-error.js";
import type { NeedsApproval } from "./tool.js";

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
  /** Changes whether a tool needs a human's approval; see each set's default policy. */
  needsApproval?: ToolApprovalPolicy<ArgumentsByName> | undefined;
}

/** The policy of every tool of a set, defaults filled in. */
export type ResolvedApprovalPolicy<ArgumentsByName> = {
  [Name in keyof ArgumentsByName]: NeedsApproval<ArgumentsByName[Name]>;
};

/**
 * The policy each tool of a set is built with: the set's defaults overridden
 * by `options.needsApproval`. Throws a ConfigurationError naming every
 * unknown tool name and every value that is neither a boolean nor a function.
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
  const policy: Record<string, unknown> = { ...defaults };
  const resolved = policy as ResolvedApprovalPolicy<ArgumentsByName>;
  if (overrides === undefined) return resolved;
  if (typeof overrides !== "object" || overrides === null || Array.isArray(overrides)) {
    throw new ConfigurationError(
      `${setName}: needsApproval must be an object mapping tool names to true, false or a function of the arguments`,
    );
  }
  const names = Object.keys(defaults);
  const problems: string[] = [];
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
    } else {
      policy[name] = value;
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
