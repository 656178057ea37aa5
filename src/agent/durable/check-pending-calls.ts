import { checkStandingScope, type StandingScope } from "../approval/standing-approval.js";
import { isObject, nonEmptyString } from "./check-state-messages.js";
import {
  type FinishedCallStatus,
  finishedCallStatuses,
  type PendingCallPhase,
  type PendingToolCall,
} from "./run-state.js";

const phases: readonly PendingCallPhase[] = [
  "requested",
  "awaiting_approval",
  "started",
  "finished",
];

/**
 * Checks the `pendingCalls` of a run state, one problem per wrong field,
 * and returns copies of the calls that passed.
 */
export function checkPendingCalls(value: unknown, problems: string[]): PendingToolCall[] {
  if (!Array.isArray(value)) {
    problems.push("pendingCalls must be an array (empty when no step is open)");
    return [];
  }
  const calls: PendingToolCall[] = [];
  const seen = new Set<string>();
  value.forEach((call: unknown, index) => {
    const before = problems.length;
    const path = `pendingCalls[${index}]`;
    const checked = checkCall(call, path, problems);
    if (checked && seen.has(checked.toolCallId)) {
      problems.push(`${path}.toolCallId "${checked.toolCallId}" appears twice`);
    }
    if (checked && problems.length === before) {
      seen.add(checked.toolCallId);
      calls.push(checked);
    }
  });
  return calls;
}

function checkCall(call: unknown, path: string, problems: string[]): PendingToolCall | undefined {
  if (!isObject(call)) {
    problems.push(`${path} must be an object`);
    return undefined;
  }
  const { toolCallId, toolName, rawArguments, phase, fingerprint, status, content } = call;
  const { approvalId, ticket, interactionId } = call;
  if (!nonEmptyString(toolCallId)) problems.push(`${path}.toolCallId must be a non-empty string`);
  if (typeof toolName !== "string") problems.push(`${path}.toolName must be a string`);
  if (typeof rawArguments !== "string") problems.push(`${path}.rawArguments must be a string`);
  if (!phases.includes(phase as PendingCallPhase)) {
    problems.push(
      `${path}.phase must be one of ${phases.join(", ")}; got ${JSON.stringify(phase) ?? "nothing"}`,
    );
  }
  const optionalString = (name: string, field: unknown) => {
    if (field !== undefined && typeof field !== "string") {
      problems.push(`${path}.${name} must be a string when present`);
    }
  };
  optionalString("fingerprint", fingerprint);
  optionalString("approvalId", approvalId);
  optionalString("ticket", ticket);
  optionalString("interactionId", interactionId);
  optionalString("content", content);
  if (status !== undefined && !finishedCallStatuses.includes(status as FinishedCallStatus)) {
    problems.push(`${path}.status must be one of ${finishedCallStatuses.join(", ")} when present`);
  }
  // A started call needed no approval when it has no fingerprint (arguments JSON cannot hold).
  if (phase === "awaiting_approval" && !isFingerprint(fingerprint)) {
    problems.push(`${path} is ${phase} but has no "sha256:" fingerprint`);
  }
  if (fingerprint !== undefined && !isFingerprint(fingerprint)) {
    problems.push(`${path}.fingerprint must start with "sha256:" when present`);
  }
  // A state saved before approvals had ids names only an interaction: it loads (to be shown
  // or cancelled) and is refused when resumed (checkResumable), never read by interaction.
  if (phase === "awaiting_approval" && !nonEmptyString(interactionId)) {
    if (!nonEmptyString(approvalId) || !nonEmptyString(ticket)) {
      problems.push(
        `${path} is awaiting_approval but names no approvalId and ticket to read the answer with`,
      );
    }
  }
  if (call.standing !== undefined) checkStandingScope(call.standing, `${path}.standing`, problems);
  if (phase === "finished" && (typeof content !== "string" || status === undefined)) {
    problems.push(`${path} is finished but lacks its status or its tool message (content)`);
  }
  if (!nonEmptyString(toolCallId)) return undefined;
  return {
    toolCallId,
    toolName: String(toolName),
    rawArguments: String(rawArguments),
    ...("arguments" in call ? { arguments: structuredClone(call.arguments) } : {}),
    phase: phase as PendingCallPhase,
    ...(typeof fingerprint === "string" ? { fingerprint } : {}),
    ...(typeof approvalId === "string" ? { approvalId } : {}),
    ...(typeof ticket === "string" ? { ticket } : {}),
    ...(typeof interactionId === "string" ? { interactionId } : {}),
    ...(call.standing !== undefined
      ? { standing: structuredClone(call.standing) as StandingScope }
      : {}),
    ...(status !== undefined ? { status: status as FinishedCallStatus } : {}),
    ...(typeof content === "string" ? { content } : {}),
  };
}

function isFingerprint(value: unknown): boolean {
  return typeof value === "string" && value.startsWith("sha256:");
}
