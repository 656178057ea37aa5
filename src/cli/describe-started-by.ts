import type { ApproverIdentity } from "../agent/approval/approver-directory.js";
import { escapeUntrustedText, quoteUntrustedValue } from "../internal/untrusted-text.js";

/**
 * Who started a run (`RunState.startedBy`) in words, escaped: a directory
 * id quoted (`"alice"`), an identity as its channel and quoted id
 * (`terminal "alice"`).
 */
export function describeStartedBy(startedBy: string | ApproverIdentity): string {
  return typeof startedBy === "string"
    ? quoteUntrustedValue(startedBy)
    : `${escapeUntrustedText(startedBy.channel)} ${quoteUntrustedValue(startedBy.id)}`;
}
