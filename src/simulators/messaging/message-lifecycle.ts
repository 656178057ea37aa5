import { toRfc3339 } from "../http/timestamps.js";
import type { AnswerFunction, InteractionQuestion } from "./answer-mode.js";
import type { InteractionRecord, MessageRecord, MessagingState } from "./messaging-state.js";

/** Timing and answering of {@link MessageLifecycle}. */
export interface MessageLifecycleOptions {
  /** Delay of each delivery step (accepted -> sent -> delivered). */
  deliveryStepMs: number;
  /** Delay between delivery of an interaction and the automatic answer. */
  answerDelayMs: number;
  answer(): AnswerFunction;
  now(): Date;
  state(): MessagingState;
}

/**
 * Moves messages through delivery over time (accepted -> sent -> delivered),
 * answers delivered interactions with the configured answer mode, and expires
 * what outlives `expires_in_s`. All timers are unref'd and cleared on close.
 */
export class MessageLifecycle {
  readonly #options: MessageLifecycleOptions;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #answerErrors: Error[] = [];
  /** The questions an answer function is working on, by interaction id: aborted when they close. */
  readonly #asking = new Map<string, AbortController>();
  #failNextDelivery: string | undefined;
  #closed = false;

  constructor(options: MessageLifecycleOptions) {
    this.#options = options;
  }

  /** Errors thrown by an answer function; those interactions stayed pending. */
  get answerErrors(): readonly Error[] {
    return this.#answerErrors;
  }

  /** Starts delivery of a newly accepted message. */
  accepted(message: MessageRecord, expiresInSeconds: number | undefined): void {
    const step = this.#options.deliveryStepMs;
    const failure = this.#failNextDelivery;
    this.#failNextDelivery = undefined;
    this.#later(step, () => {
      if (message.state !== "accepted") return;
      if (failure !== undefined) {
        this.failDelivery(message, failure);
        return;
      }
      this.#setState(message, "sent");
      this.#later(step, () => {
        if (message.state !== "sent") return;
        this.#setState(message, "delivered");
        this.#scheduleAnswer(message);
      });
    });
    if (expiresInSeconds !== undefined) {
      this.#later(expiresInSeconds * 1000, () => this.expire(message));
    }
  }

  /** Makes the next accepted message fail delivery with this error message. */
  failNextDelivery(errorMessage: string): void {
    this.#failNextDelivery = errorMessage;
  }

  /** Marks the message failed; its pending interaction fails with it. */
  failDelivery(message: MessageRecord, errorMessage: string): void {
    this.#setState(message, "failed");
    message.error = { code: "delivery_failed", message: errorMessage };
    const interaction = this.#interactionOf(message);
    if (interaction?.state === "pending") this.#close(interaction, "failed");
  }

  /** Expires the pending interaction, and the message when it was not delivered yet. */
  expire(message: MessageRecord): void {
    const interaction = this.#interactionOf(message);
    if (interaction?.state === "pending") this.#close(interaction, "expired");
    if (message.state === "accepted" || message.state === "sent")
      this.#setState(message, "expired");
  }

  /**
   * Cancels a message that is not delivered yet, or an interaction still
   * waiting for its answer; a delivered notification or an answered
   * interaction stays as it is.
   */
  cancel(message: MessageRecord): void {
    const interaction = this.#interactionOf(message);
    const undelivered = message.state === "accepted" || message.state === "sent";
    const waiting = message.state === "delivered" && interaction?.state === "pending";
    if (!undelivered && !waiting) return;
    this.#setState(message, "canceled");
    if (interaction?.state === "pending") this.#close(interaction, "canceled");
  }

  /** Records an answer on a pending interaction; false when it is no longer pending. */
  answer(interaction: InteractionRecord, optionId: string, text?: string): boolean {
    if (interaction.state !== "pending") return false;
    interaction.answer = {
      option_id: optionId,
      ...(text === undefined ? {} : { text }),
      answered_at: toRfc3339(this.#options.now()),
    };
    this.#close(interaction, "answered");
    return true;
  }

  /** Stops every timer; answers still being computed are dropped. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const asking of this.#asking.values()) asking.abort("closed");
    this.#asking.clear();
  }

  /**
   * A pending interaction takes its final state; an answer function still
   * working on it learns so through its signal (aborted with the state as
   * its reason), so a person at a prompt is told rather than left answering.
   */
  #close(interaction: InteractionRecord, state: Exclude<InteractionRecord["state"], "pending">) {
    interaction.state = state;
    const asking = this.#asking.get(interaction.interaction_id);
    this.#asking.delete(interaction.interaction_id);
    asking?.abort(state);
  }

  #scheduleAnswer(message: MessageRecord): void {
    const interaction = this.#interactionOf(message);
    if (!interaction) return;
    this.#later(this.#options.answerDelayMs, () => {
      if (interaction.state !== "pending") return;
      const question: InteractionQuestion = {
        interaction_id: interaction.interaction_id,
        message_id: interaction.message_id,
        subscription_link_id: interaction.subscription_link_id,
        text: interaction.text,
        options: structuredClone(interaction.options),
        metadata: structuredClone(interaction.metadata),
      };
      const asking = new AbortController();
      this.#asking.set(interaction.interaction_id, asking);
      Promise.resolve()
        .then(() => this.#options.answer()(question, { signal: asking.signal }))
        .finally(() => {
          if (this.#asking.get(interaction.interaction_id) === asking) {
            this.#asking.delete(interaction.interaction_id);
          }
        })
        .then(
          (choice) => {
            if (this.#closed || choice === undefined) return;
            if (typeof choice?.option_id !== "string" || choice.option_id === "") {
              this.#answerErrors.push(
                new Error(
                  `The answer function returned ${JSON.stringify(choice)} for interaction ${interaction.interaction_id}; expected {option_id, text?} or undefined.`,
                ),
              );
              return;
            }
            this.answer(interaction, choice.option_id, choice.text);
          },
          (error: unknown) => {
            this.#answerErrors.push(error instanceof Error ? error : new Error(String(error)));
          },
        );
    });
  }

  #interactionOf(message: MessageRecord): InteractionRecord | undefined {
    if (message.interaction_id === undefined) return undefined;
    return this.#options
      .state()
      .interactions.find((interaction) => interaction.interaction_id === message.interaction_id);
  }

  #setState(message: MessageRecord, state: MessageRecord["state"]): void {
    message.state = state;
    message.updated_at = toRfc3339(this.#options.now());
  }

  #later(delayMs: number, action: () => void): void {
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#closed) action();
    }, delayMs);
    timer.unref();
    this.#timers.add(timer);
  }
}
