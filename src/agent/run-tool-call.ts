import { executeToolCall, type ToolCallEnvironment } from "./execute-tool-call.js";
import { guardToolCallRecord } from "./guard-tool-call-record.js";
import type { ModelToolCall } from "./model-message.js";
import type { ToolCallRecord } from "./run-result.js";

/**
 * The one tool-call pipeline, for an agent's model and an MCP host alike:
 * the arguments decoded and checked against the tool's schema, the policy
 * and the approval gate, the fingerprint check just before the call runs,
 * the run (with its timeout), then the record guarded: every secret the
 * environment knows of removed from its message, error and refusal reason,
 * and the message cut to `maxToolResultChars`. Never throws; every outcome
 * is a record whose `content` says what happened.
 */
export async function runToolCall(
  call: ModelToolCall,
  environment: ToolCallEnvironment,
): Promise<ToolCallRecord> {
  return guardToolCallRecord(await executeToolCall(call, environment), {
    secrets: environment.secrets,
    maxToolResultChars: environment.maxToolResultChars,
    tool: environment.tools.get(call.function.name),
  });
}
