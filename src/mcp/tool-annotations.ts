import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { AnyTool } from "../tools/tool.js";

/**
 * The MCP annotations of a Switchyard tool, from its definition:
 * `readOnlyHint` for a read-only tool; otherwise `destructiveHint`, the
 * tool's `destructive` (when absent, true when the tool asks by default:
 * its `needsApproval` is not `false`), and
 * `idempotentHint` when the tool says calling it again changes nothing more.
 *
 * @example
 * toolAnnotations(deleteCallbacksTool) // { readOnlyHint: false, destructiveHint: true, idempotentHint: true }
 */
export function toolAnnotations(tool: AnyTool): ToolAnnotations {
  if (tool.readOnly === true) return { readOnlyHint: true };
  return {
    readOnlyHint: false,
    destructiveHint: tool.destructive ?? tool.needsApproval !== false,
    ...(tool.idempotent === true ? { idempotentHint: true } : {}),
  };
}
