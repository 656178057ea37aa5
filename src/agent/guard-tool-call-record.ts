import type { SecretRegistry } from "../internal/redact.js";
import type { AnyTool } from "../tools/tool.js";
import { cutToolMessage } from "./cut-tool-message.js";
import type { ToolCallRecord } from "./run-result.js";

/** What guarding a record needs from the agent. */
export interface ToolCallRecordGuard {
  secrets: SecretRegistry;
  maxToolResultChars: number;
  tool: AnyTool | undefined;
}

/**
 * A tool call's record as it leaves the tool, before the model, the run
 * state, the events or the result see it: its message for the model with
 * every secret the agent knows of removed and cut to `maxToolResultChars`,
 * its error (with every `cause`) and its refusal reason redacted. The raw
 * `result` stays, for the caller's own code.
 */
export function guardToolCallRecord(
  record: ToolCallRecord,
  guard: ToolCallRecordGuard,
): ToolCallRecord {
  const { secrets } = guard;
  const guarded = {
    ...record,
    content: cutToolMessage(
      secrets.redactText(record.content),
      guard.maxToolResultChars,
      guard.tool,
    ),
  } as ToolCallRecord & { error?: Error };
  if ("error" in record && record.error !== undefined) {
    guarded.error = secrets.redactError(record.error);
  }
  if (record.approval?.outcome === "refused") {
    guarded.approval = { ...record.approval, reason: secrets.redactText(record.approval.reason) };
  }
  return guarded;
}
