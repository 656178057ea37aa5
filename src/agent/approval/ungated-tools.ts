import type { Logger } from "pino";
import type { AnyTool } from "../../tools/tool.js";

/**
 * The names of the tools whose calls may change something (not `readOnly`)
 * and never ask for approval (`needsApproval: false`), in the agent's
 * order. A tool whose approval depends on its arguments (a function) is not
 * listed: some of its calls ask.
 */
export function ungatedToolNames(tools: Iterable<AnyTool>): readonly string[] {
  const names: string[] = [];
  for (const tool of tools) {
    if (tool.readOnly !== true && tool.needsApproval === false) names.push(tool.name);
  }
  return Object.freeze(names);
}

/**
 * Logs at warn level, once, the tools whose default approval was turned off
 * (`runWithoutApproval` of a tool set), so that a policy change shows in the
 * logs of every agent it applies to.
 */
export function warnApprovalsTurnedOff(tools: Iterable<AnyTool>, logger: Logger): void {
  const turnedOff = [...tools]
    .filter((tool) => tool.defaultApprovalTurnedOff === true)
    .map((tool) => tool.name);
  if (turnedOff.length === 0) return;
  logger.warn(
    { tools: turnedOff },
    `approval is turned off for ${turnedOff.join(", ")} (runWithoutApproval): their calls run without asking anyone`,
  );
}
