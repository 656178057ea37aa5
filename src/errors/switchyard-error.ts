/**
 * Base class of every error Switchyard throws. Catch this to handle all of them.
 */
export class SwitchyardError extends Error {
  override readonly name: string = "SwitchyardError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
