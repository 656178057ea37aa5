/**
 * Every code a refused approval carries (`RefusedRecord.code`,
 * `RefusedDecision.code`), in one list: `docs/errors.md` says what each
 * means and what to do about it.
 */
export const refusalCodes = [
  // A person or a rule said no.
  "denied",
  "policy_denied",
  // No approval could be obtained.
  "no_approver",
  "approver_error",
  "approver_unavailable",
  "messaging_error",
  "delivery_failed",
  "timeout",
  "expired",
  "canceled",
  "aborted",
  "unreadable_answer",
  "invalid_decision",
  "pending_not_supported",
  // An approval was given but cannot be used for this call.
  "fingerprint_mismatch",
  "already_used",
  "not_fingerprintable",
  "audit_not_recorded",
  "invalid_edit",
  "not_enough_approvers",
  // The answer came from someone the asking rule does not allow (not in the approver directory, or
  // without its roles), or from the person who started the run.
  "approver_not_allowed",
  "self_approval",
  // The gate did not ask: a person cannot judge the action as it would run.
  "secret_in_value",
] as const;

/**
 * Why an approval was refused: one of {@link refusalCodes}. A `switch` on it
 * is checked for exhaustiveness by TypeScript, and a misspelt code is a type
 * error.
 */
export type RefusalCode = (typeof refusalCodes)[number];

/** Whether `value` is one of the {@link refusalCodes}. */
export function isRefusalCode(value: unknown): value is RefusalCode {
  return typeof value === "string" && (refusalCodes as readonly string[]).includes(value);
}
