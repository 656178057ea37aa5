import { expect } from "vitest";
import { decideByPolicy } from "../../src/agent/approval/approval-policy.js";
import { compileApprovalPolicy } from "../../src/agent/approval/compile-approval-policy.js";
import { silentLogger } from "../../src/internal/logger.js";
import type { AnyTool, ToolContext } from "../../src/tools/tool.js";

/** A live context with a silent logger, as the agent hands a tool. */
export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, logger: silentLogger(), toolCallId: "call_test" };
}

/** The tool of that name; fails the test when the set has none. */
export function findTool(tools: readonly AnyTool[], name: string): AnyTool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool named ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return tool;
}

/**
 * Checks the arguments like the agent does, runs the tool, and returns its
 * result as the model reads it (through JSON).
 */
export async function callTool(
  tools: readonly AnyTool[],
  name: string,
  args: unknown,
  context: ToolContext = toolContext(),
): Promise<Record<string, unknown>> {
  const tool = findTool(tools, name);
  const check = tool.checkArguments(args);
  if (!check.success) throw new Error(`arguments rejected: ${check.issues.join("; ")}`);
  const result = await tool.execute(check.data, context);
  return JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
}

/** The issues the tool's schema reports for these arguments (fails the test if they pass). */
export function argumentIssues(tools: readonly AnyTool[], name: string, args: unknown): string[] {
  const check = findTool(tools, name).checkArguments(args);
  expect(check.success, `expected ${JSON.stringify(args)} to be rejected`).toBe(false);
  return check.success ? [] : check.issues;
}

/** The parsed arguments (fails the test if they are rejected). */
export function parsedArguments(tools: readonly AnyTool[], name: string, args: unknown): unknown {
  const check = findTool(tools, name).checkArguments(args);
  if (!check.success) throw new Error(`arguments rejected: ${check.issues.join("; ")}`);
  return check.data;
}

/**
 * Whether a call with these (valid) arguments asks a person, as an agent's
 * approval policy without rules of its own decides it: the rules of the
 * tool's options, then its default.
 */
export async function needsApprovalFor(
  tools: readonly AnyTool[],
  name: string,
  args: unknown,
): Promise<boolean> {
  const tool = findTool(tools, name);
  const parsed = parsedArguments(tools, name, args);
  const policy = compileApprovalPolicy({}, tools);
  return (await decideByPolicy(policy, tool, parsed, silentLogger)).decision === "ask";
}
