import type { ExpiredRecord, RefusedRecord } from "../approval-gate.js";
import { sameFingerprint } from "./fingerprint-check.js";

/** One approval this process asked for (or granted), bound to one call and its arguments. */
export interface IssuedApproval {
  /** The gate's own approval id, minted when the question was issued. */
  approvalId: string;
  toolName: string;
  toolCallId: string;
  /** The fingerprint of the call as it was asked about. */
  fingerprint: string;
  /** The arguments that run once it is used (the asked ones, or a person's edit). */
  args: unknown;
  /** Epoch milliseconds after which it can no longer be used. */
  expiresAt: number;
  /** When the question was issued. */
  requestedAt: Date;
  /** `issued`: usable once; `spent`: used; `closed`: denied, refused or expired. */
  state: "issued" | "spent" | "closed";
}

/** What checking an approval named by client-sent state found. */
export type IssuedApprovalCheck =
  | { usable: IssuedApproval }
  | { refused: RefusedRecord; issued?: IssuedApproval }
  | { expired: ExpiredRecord; issued: IssuedApproval };

/**
 * The approvals a gate inside another framework issued, kept on the server
 * by call: what lets an approval that comes back in client-sent state (a
 * chat's message history, a restored run state) count only when this
 * process asked about exactly that call with exactly those arguments, and
 * only once. A call is issued at most once: asking about it again (the
 * framework checking its policy again on the next request) finds the entry
 * as it is, spent or closed ones included, so a replay never re-opens it.
 *
 * An entry is kept for {@link keptAfterExpiryMs} past its expiry, then
 * forgotten, so a long-running server's memory stays bounded. An approval
 * of a forgotten call that comes back is refused as never asked for here,
 * and asking about that call again asks a person again: nothing runs on it.
 */
export class IssuedApprovals {
  readonly #entries = new Map<string, IssuedApproval>();

  /** The entry of a call, when one was issued. */
  find(toolName: string, toolCallId: string): IssuedApproval | undefined {
    return this.#entries.get(keyOf(toolName, toolCallId));
  }

  /** Issues `entry` unless its call already has one; returns the call's entry. */
  issue(entry: Omit<IssuedApproval, "state">, now = Date.now()): IssuedApproval {
    this.#forgetExpired(now);
    const key = keyOf(entry.toolName, entry.toolCallId);
    const existing = this.#entries.get(key);
    if (existing) return existing;
    const issued: IssuedApproval = { ...entry, state: "issued" };
    this.#entries.set(key, issued);
    return issued;
  }

  /**
   * Whether the call's approval may be used now for `fingerprint`, failing
   * closed: one never issued here (`invalid_decision`), one already used
   * (`already_used`), denied or refused (`denied`), one for other arguments
   * (`fingerprint_mismatch`), or one past its expiry (expired) is not.
   * Spends nothing; {@link IssuedApprovals.take} does.
   */
  check(
    toolName: string,
    toolCallId: string,
    fingerprint: string,
    now = Date.now(),
  ): IssuedApprovalCheck {
    const issued = this.find(toolName, toolCallId);
    const refuse = (code: RefusedRecord["code"], reason: string): IssuedApprovalCheck => ({
      refused: {
        outcome: "refused",
        fingerprint,
        code,
        reason,
        ...(issued ? { approvalId: issued.approvalId } : {}),
      },
      ...(issued ? { issued } : {}),
    });
    if (!issued) {
      return refuse(
        "invalid_decision",
        `the approval of ${toolName} that came back with the request was never asked for by this server for this call, so it was not used`,
      );
    }
    if (issued.state === "spent") {
      return refuse(
        "already_used",
        `the approval of this call of ${toolName} was already used once, so it was not used again`,
      );
    }
    if (issued.state === "closed") {
      return refuse(
        "denied",
        `the approval question about this call of ${toolName} was already answered without an approval`,
      );
    }
    if (!sameFingerprint(fingerprint, issued.fingerprint)) {
      return refuse(
        "fingerprint_mismatch",
        `the approval was asked for other arguments of ${toolName} than the call now has (fingerprint mismatch)`,
      );
    }
    if (now > issued.expiresAt) {
      return {
        expired: {
          outcome: "expired",
          fingerprint,
          approvalId: issued.approvalId,
          reason: `the approval of ${toolName} came back after its question expired (${new Date(issued.expiresAt).toISOString()})`,
        },
        issued,
      };
    }
    return { usable: issued };
  }

  /** {@link IssuedApprovals.check}, spending the approval when it is usable. */
  take(toolName: string, toolCallId: string, fingerprint: string): IssuedApprovalCheck {
    const checked = this.check(toolName, toolCallId, fingerprint);
    if ("usable" in checked) checked.usable.state = "spent";
    else if (checked.issued?.state === "issued") checked.issued.state = "closed";
    return checked;
  }

  /** Closes the call's approval (denied, refused or expired): it can no longer be used. */
  close(entry: IssuedApproval): void {
    if (entry.state === "issued") entry.state = "closed";
  }

  // Entries are issued in order of time with one expiry window, so the
  // oldest come first: forgetting stops at the first one still kept.
  #forgetExpired(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt + keptAfterExpiryMs >= now) return;
      this.#entries.delete(key);
    }
  }
}

/** How long an issued approval is remembered after its expiry: one day. */
export const keptAfterExpiryMs = 24 * 60 * 60 * 1000;

function keyOf(toolName: string, toolCallId: string): string {
  return `${toolName}\n${toolCallId}`;
}
