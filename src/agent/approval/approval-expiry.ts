import { SwitchyardError } from "../../errors/switchyard-error.js";

/**
 * What a run does when nobody answers an approval question before it
 * expires (an expiry is never a denial):
 *
 * - `tell-model`: the call does not run and the model is told it expired
 *   (error `approval_expired`), not that it was refused;
 * - `end`: the run ends after the step, with status `approval_expired`;
 * - `ask-again`: a new question is put about the same call (at most 10
 *   per call), and the run waits for it (or suspends on it, in a durable run).
 */
export type ApprovalExpiryAction = "tell-model" | "end" | "ask-again";

/** The values `onApprovalExpired` takes. */
export const approvalExpiryActions: readonly ApprovalExpiryAction[] = [
  "tell-model",
  "end",
  "ask-again",
];

/** Why a run ended with status `approval_expired`. */
export class ApprovalExpiredError extends SwitchyardError {
  override readonly name = "ApprovalExpiredError";
  /** The tools whose questions expired. */
  readonly toolNames: readonly string[];

  constructor(toolNames: readonly string[]) {
    super(
      `Nobody answered the approval question for ${toolNames.join(", ")} before it expired, so the run ended (onApprovalExpired: "end"); nothing was refused. Start the run again, or resume from its messages, to ask afresh.`,
    );
    this.toolNames = Object.freeze([...toolNames]);
  }
}
