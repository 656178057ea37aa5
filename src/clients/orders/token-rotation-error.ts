import { SwitchyardError } from "../../errors/switchyard-error.js";

/** The step of a token rotation that failed, in the order they run. */
export type TokenRotationStep = "create" | "verify" | "deploy" | "delete-old-phrase";

/**
 * A token rotation stopped. `step` says where; `oldPhraseDeleted` is false for
 * every step before the last, so the old token still works. The message names
 * the step and what to do; it never holds the new token or a secret phrase.
 */
export class TokenRotationError extends SwitchyardError {
  override readonly name: string = "TokenRotationError";
  readonly step: TokenRotationStep;
  /** Whether the old phrase (and so the old token) was deleted: always false here. */
  readonly oldPhraseDeleted: boolean;
  readonly environment: string | undefined;

  constructor(
    step: TokenRotationStep,
    message: string,
    options: { cause?: unknown; environment?: string | undefined } = {},
  ) {
    const where = options.environment ? ` [${options.environment}]` : "";
    super(`token rotation${where} failed at step "${step}": ${message}`, {
      cause: options.cause,
    });
    this.step = step;
    this.oldPhraseDeleted = false;
    this.environment = options.environment;
  }
}
