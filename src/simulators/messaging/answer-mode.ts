import type { MessageOption } from "./messaging-state.js";

/** What an answerer is shown of an interaction. */
export interface InteractionQuestion {
  interaction_id: string;
  message_id: string;
  subscription_link_id: string;
  text: string;
  options: MessageOption[];
  metadata: Record<string, unknown>;
}

/** The person's choice: an option id, with free text when they typed some. */
export interface AnswerChoice {
  option_id: string;
  text?: string;
}

/**
 * Decides how a person answers an interaction. Returning undefined leaves it
 * pending (the person never answers). `signal` aborts when the interaction
 * closes before this function answers (withdrawn by the sender, expired,
 * answered elsewhere, failed), its reason the interaction's new state
 * (`"canceled"`, `"expired"`, `"answered"`, `"failed"`), or `"closed"` when
 * the simulator stops; an answer given after that changes nothing.
 */
export type AnswerFunction = (
  question: InteractionQuestion,
  context?: { signal: AbortSignal },
) => AnswerChoice | undefined | Promise<AnswerChoice | undefined>;

/**
 * How the simulated person answers interactions: always `approve`, always
 * `deny`, `never` (stay pending), or a function (see {@link terminalAnswerer}).
 */
export type AnswerMode = "approve" | "deny" | "never" | AnswerFunction;

/** The answer function a mode stands for. */
export function answerFunctionFor(mode: AnswerMode): AnswerFunction {
  if (typeof mode === "function") return mode;
  if (mode === "approve") return () => ({ option_id: "approve" });
  if (mode === "deny") return () => ({ option_id: "deny" });
  if (mode === "never") return () => undefined;
  throw new RangeError(
    `answer must be "approve", "deny", "never" or a function; got ${JSON.stringify(mode)}`,
  );
}
