import { describeValue, isPlainObject } from "./validation-checks.js";

/** What a function name may be, as reasoning services enforce it. */
export const functionNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Checks `tools` (each `{type: "function", function: {name, description?,
 * parameters}}`, names valid and unique) and `tool_choice` (`none`, `auto`
 * or a function that is among the tools).
 */
export function checkToolsAndChoice(problems: string[], tools: unknown, toolChoice: unknown): void {
  const names = checkTools(problems, tools);
  checkToolChoice(problems, toolChoice, names);
}

/**
 * Results for tool lists that cannot change: frozen at every level checked,
 * as an Agent's definitions are. Their check on each step is then a lookup.
 */
const frozenToolChecks = new WeakMap<readonly unknown[], { problems: string[]; names: string[] }>();

function checkTools(problems: string[], tools: unknown): string[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) {
    problems.push(`tools ${describeValue(tools)} is not an array of tool definitions`);
    return [];
  }
  const known = frozenToolChecks.get(tools);
  if (known) {
    problems.push(...known.problems);
    return known.names;
  }
  const found: string[] = [];
  const names = checkToolList(found, tools);
  problems.push(...found);
  if (isFrozenToolList(tools)) frozenToolChecks.set(tools, { problems: found, names });
  return names;
}

function isFrozenToolList(tools: readonly unknown[]): boolean {
  if (!Object.isFrozen(tools)) return false;
  return tools.every((tool) => {
    if (!isPlainObject(tool) || !Object.isFrozen(tool)) return false;
    const fn = tool.function;
    if (!isPlainObject(fn) || !Object.isFrozen(fn)) return false;
    return !isPlainObject(fn.parameters) || Object.isFrozen(fn.parameters);
  });
}

function checkToolList(problems: string[], tools: readonly unknown[]): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  tools.forEach((tool, index) => {
    const label = `tools[${index}]`;
    if (!isPlainObject(tool)) {
      problems.push(`${label} ${describeValue(tool)} is not a tool definition object`);
      return;
    }
    if (tool.type !== "function") {
      problems.push(`${label}.type ${describeValue(tool.type)} is not "function"`);
    }
    const fn = tool.function;
    if (!isPlainObject(fn)) {
      problems.push(`${label}.function ${describeValue(fn)} is not an object`);
      return;
    }
    if (typeof fn.name === "string" && fn.name.length > 64) {
      problems.push(
        `${label}.function.name ${describeValue(fn.name)} has ${fn.name.length} characters, at most 64`,
      );
    } else if (typeof fn.name !== "string" || !functionNamePattern.test(fn.name)) {
      problems.push(
        `${label}.function.name ${describeValue(fn.name)} does not match ^[a-zA-Z0-9_-]{1,64}$`,
      );
    } else {
      if (seen.has(fn.name)) {
        problems.push(`${label}.function.name "${fn.name}" is used by an earlier tool too`);
      }
      seen.add(fn.name);
      names.push(fn.name);
    }
    if (fn.description !== undefined && typeof fn.description !== "string") {
      problems.push(
        `${label}.function.description ${describeValue(fn.description)} is not a string`,
      );
    }
    if (!isPlainObject(fn.parameters)) {
      problems.push(
        `${label}.function.parameters ${describeValue(fn.parameters)} is not an object (a JSON Schema of type "object")`,
      );
    } else if (fn.parameters.type !== undefined && fn.parameters.type !== "object") {
      problems.push(
        `${label}.function.parameters.type ${describeValue(fn.parameters.type)} is not "object"`,
      );
    }
  });
  return names;
}

function checkToolChoice(problems: string[], toolChoice: unknown, names: string[]): void {
  if (toolChoice === undefined || toolChoice === "none" || toolChoice === "auto") return;
  const name = readChosenName(toolChoice);
  if (name === undefined) {
    problems.push(
      `tool_choice ${describeValue(toolChoice)} is not "none", "auto" or {type: "function", function: {name}}`,
    );
    return;
  }
  if (!names.includes(name)) {
    const available = names.length > 0 ? names.join(", ") : "none";
    problems.push(
      `tool_choice names tool "${name}", which is not in tools (available: ${available})`,
    );
  }
}

function readChosenName(toolChoice: unknown): string | undefined {
  if (!isPlainObject(toolChoice) || toolChoice.type !== "function") return undefined;
  const fn = toolChoice.function;
  if (!isPlainObject(fn) || typeof fn.name !== "string" || fn.name === "") return undefined;
  return fn.name;
}
