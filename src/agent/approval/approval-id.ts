import { createHash, createHmac, randomBytes } from "node:crypto";
import { isRunId } from "../durable/run-id.js";

/** Between the run's id and the random part of an approval id: base64url never holds it. */
const separator = ".";

/**
 * A new approval id: the run's id, `.`, and 128 random bits in base64url
 * (`run_20250512T093000Z_1a2b3c4d.3q2-7wEiRKe8sYdq5Bn0WQ`). The agent mints
 * one for each action it puts to the approver (a call at the gate, a use of
 * a standing approval, a budget extension); the approval is spent under it,
 * once. Unguessable, so a client that answers by id cannot name another's.
 */
export function newApprovalId(runId: string | undefined): string {
  return `${runId ?? "run"}${separator}${randomBytes(16).toString("base64url")}`;
}

/**
 * The approval id of use `use` of the standing approval granted under
 * `grantedBy`: derived, so an older copy of the run's state put back names
 * the same use by the same id and the store refuses to spend it twice. It
 * has the form of any approval id (the run's id, `.`, 22 base64url
 * characters), and is as hard to guess as the id it derives from.
 */
export function standingUseApprovalId(
  runId: string | undefined,
  grantedBy: string,
  use: number,
): string {
  const digest = createHash("sha256").update(`standing use\n${grantedBy}\n${use}`).digest();
  return `${runId ?? "run"}${separator}${digest.subarray(0, 16).toString("base64url")}`;
}

/**
 * The approval id of the action with `contentKey` (its step, fingerprint and
 * rank, `RunJournal`'s key) in a run whose secret seed is `seed`: the same
 * action asked again by a run that went on from a state after a crash gets
 * the same id, so its question is the same message. It has the form of any
 * approval id, and is as hard to guess as a new one without the seed.
 */
export function derivedApprovalId(runId: string, seed: string, contentKey: string): string {
  const digest = createHmac("sha256", seed).update(`approval\n${contentKey}`).digest();
  return `${runId}${separator}${digest.subarray(0, 16).toString("base64url")}`;
}

/** The run an approval id was minted in, or `undefined` when the id is not one the agent mints. */
export function runIdOfApprovalId(approvalId: string): string | undefined {
  if (approvalId.length > 200) return undefined;
  const at = approvalId.lastIndexOf(separator);
  if (at <= 0 || approvalId.length - at - 1 !== 22) return undefined;
  if (!/^[A-Za-z0-9_-]{22}$/.test(approvalId.slice(at + 1))) return undefined;
  const runId = approvalId.slice(0, at);
  // Checked before any store reads it: a forged id names no file or row of its choosing.
  return isRunId(runId) ? runId : undefined;
}
