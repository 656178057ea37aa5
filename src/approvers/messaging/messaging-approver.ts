import { sameFingerprint } from "../../agent/approval/fingerprint-check.js";
import type {
  ApprovalAction,
  ApprovalContext,
  ApprovalDecision,
  ApprovalPeek,
  Approver,
  RefusedDecision,
} from "../../agent/approver.js";
import { batchAnswer } from "../../clients/messaging/batch-answer.js";
import { editAnswer } from "../../clients/messaging/messaging-requests.js";
import type { AcceptedMessage, Interaction } from "../../clients/messaging/messaging-types.js";
import type { InteractionOutcome } from "../../clients/messaging/wait-options.js";
import { AbortedError } from "../../errors/transport-errors.js";
import { actionFingerprint, textDigest } from "../../internal/canonical-json.js";
import { componentLogger, type Logger } from "../../internal/logger.js";
import { attachSecrets, redactValue, secretsOf } from "../../internal/redact.js";
import { editableJson, escapeUntrustedText } from "../../internal/untrusted-text.js";
import {
  approvalOptions,
  buildApprovalMessageText,
  describeStandingScope,
  editOption,
  standingOption,
  standingOptionId,
} from "./approval-message-text.js";
import { formatDuration, refusal, throwIfAborted } from "./approval-refusal.js";
import { ApproverReadiness } from "./approver-readiness.js";
import { type BatchQuestionPlan, planBatchQuestions } from "./batch-question-text.js";
import { describeMessagingError } from "./describe-messaging-error.js";
import {
  type BatchItemId,
  batchItemId,
  judgeBatchItem,
  parseBatchItemId,
} from "./judge-batch-item.js";
import { deliveryFailedReason, judgeInteraction } from "./judge-interaction.js";
import { cancelQuestion, readDeliveryFailure } from "./message-follow-up.js";
import {
  type MessagingApproverOptions,
  type ResolvedMessagingApproverOptions,
  resolveMessagingApproverOptions,
} from "./messaging-approver-options.js";
import { combineTwoApprovals, isPairId, pairId, splitPairId } from "./two-approvers.js";

/**
 * What this approver recorded of a question it sent, by interaction id (or,
 * for an item of a batch question, by the item's id): the fingerprint it
 * asked about, its message and link, and for batch items the question's
 * text and the numbers it showed.
 */
interface AskedRecord {
  fingerprint: string;
  messageId: string;
  link: string;
  questionText?: string;
  offered?: readonly number[];
}

/** A question that is out: where it went and which action it asks about. */
interface AskedQuestion {
  messageId: string;
  interactionId: string;
}

/**
 * Asks a person, through the messaging service, before a destructive action
 * runs (docs/contract.md §4). One interaction per action, worded so a person can
 * judge it; only an answer `approve` to the interaction created for the
 * action's exact fingerprint approves, once. Everything else is a refusal
 * with a `code` and a `reason` the model can read: `denied`,
 * `canceled`, `delivery_failed`, `approver_unavailable`, `timeout`,
 * `unreadable_answer`, `messaging_error`, `fingerprint_mismatch`. A
 * question nobody answered in time (the service's expiry, or `timeoutMs`)
 * is `expired`, its own outcome. The agent spends an approval when its
 * call starts (an approval runs its action once; a second use is refused
 * as `already_used`). An abort cancels the question and throws `AbortedError`.
 *
 * Durable runs (`context.allowPending`) get a `pending` decision as soon as
 * the question is out, and later call `checkApproval` (possibly in another
 * process, with a new approver) to read the answer without asking again.
 *
 * @example
 * const approver = new MessagingApprover({
 *   client: new MessagingClient({ baseUrl: "https://messaging.example.com", token }),
 *   subscriptionLinkId: "sl_8f2c",
 *   timeoutMs: 300_000,
 * });
 */
export class MessagingApprover implements Approver {
  readonly #options: ResolvedMessagingApproverOptions;
  readonly #readiness: ApproverReadiness;
  /** Readiness of `secondSubscriptionLinkId`, made when first needed. */
  #secondReadiness: ApproverReadiness | undefined;
  /** Fingerprint and message of each interaction this approver created. */
  readonly #asked = new Map<string, AskedRecord>();
  /** Every interaction id the service gave a question of this approver's. */
  readonly #interactionIds = new Set<string>();

  constructor(options: MessagingApproverOptions) {
    this.#options = resolveMessagingApproverOptions(options);
    // An agent using this approver redacts its client's token too.
    attachSecrets(this, secretsOf(this.#options.client));
    this.#readiness = new ApproverReadiness(this.#options.client, this.#options.subscriptionLinkId);
  }

  /**
   * Checks the approver can be reached (once, remembered on success), sends
   * the question, and waits up to `timeoutMs` for the answer; with
   * `context.allowPending` it returns `pending` right after sending.
   */
  async requestApproval(
    action: ApprovalAction,
    context: ApprovalContext,
  ): Promise<ApprovalDecision> {
    const logger = this.#loggerFor(context);
    const decide = (decision: ApprovalDecision) => this.#withSource(action, decision);
    let asked: AskedQuestion | undefined;
    try {
      throwIfAborted(context.signal, action.toolName);
      const readiness = await this.#readiness.check(context.signal);
      if (!readiness.ready) return decide(refusal(readiness.code, readiness.reason));
      if ((action.requiredApprovers ?? 1) > 1) {
        return decide(await this.#askTwo(action, context, logger));
      }
      const sent = await this.#send(action, context, logger);
      if ("outcome" in sent) return decide(sent);
      asked = sent;
      if (context.allowPending === true) {
        return decide({
          outcome: "pending",
          fingerprint: action.fingerprint,
          interactionId: sent.interactionId,
        });
      }
      return decide(await this.#wait(action, sent, context, logger));
    } catch (error) {
      if (!(error instanceof AbortedError)) throw error;
      await decide(
        refusal(
          "aborted",
          `The run was aborted while asking for approval of "${action.toolName}", so the action was not run.`,
          asked?.interactionId,
        ),
      );
      throw error;
    }
  }

  /**
   * Reads the answer to a question asked earlier with `allowPending`
   * without sending anything: the decision as `requestApproval` would give
   * it, or `pending` again while nobody has answered.
   *
   * It works in a new process with a new approver. The answer is then bound
   * to the action by the caller's record: `interactionId` was stored together
   * with `fingerprint` in the run state (trusted storage) when the question
   * was sent, and `fingerprint` must equal the fingerprint of the action
   * about to run. When the service returns the interaction's
   * `metadata.fingerprint`, it must match as well. It reads the same answer
   * each time it is asked: the agent spends the approval once, when the call
   * starts, in the run's store. When the service cannot be reached and the
   * run may wait (`context.allowPending`), the decision is `pending` again:
   * the run suspends with its question open, rather than refuse an action
   * the person may have approved.
   */
  async checkApproval(
    pending: { fingerprint: string; interactionId: string; action: ApprovalAction },
    context: ApprovalContext,
  ): Promise<ApprovalDecision> {
    const logger = this.#loggerFor(context);
    const { action, interactionId } = pending;
    const decide = (decision: ApprovalDecision) => this.#withSource(action, decision);
    const tool = `"${action.toolName}"`;
    try {
      if (typeof interactionId !== "string" || interactionId.trim() === "") {
        return decide(
          refusal(
            "messaging_error",
            `The pending approval of ${tool} names no interaction, so its answer cannot be read; the action was not run.`,
          ),
        );
      }
      if (!sameFingerprint(pending.fingerprint, action.fingerprint)) {
        return decide(
          refusal(
            "fingerprint_mismatch",
            `The approval in interaction "${interactionId}" was asked for different arguments than this call of ${tool}, so it does not approve it; the action was not run.`,
            interactionId,
          ),
        );
      }
      throwIfAborted(context.signal, action.toolName);
      if (isPairId(interactionId)) {
        return decide(await this.#checkTwo(action, interactionId, context, logger));
      }
      // An item of a batch question is read from the question's interaction.
      const item = parseBatchItemId(interactionId);
      let interaction: Interaction;
      try {
        interaction = await this.#options.client.getInteraction(
          item?.interactionId ?? interactionId,
          {
            signal: context.signal,
          },
        );
      } catch (error) {
        throwIfAborted(context.signal, action.toolName, error);
        if (context.allowPending === true) {
          return decide(this.#stillPending(action, interactionId, error, logger));
        }
        return decide(
          refusal(
            "messaging_error",
            `The answer to the approval request for ${tool} could not be read (${describeMessagingError(error)}), so the action was not run.`,
            interactionId,
          ),
        );
      }
      return decide(
        await this.#conclude(
          action,
          interaction,
          interactionId,
          this.#asked.get(interactionId)?.messageId ?? interaction.messageId,
          logger,
          item,
        ),
      );
    } catch (error) {
      if (!(error instanceof AbortedError)) throw error;
      await decide(
        refusal(
          "aborted",
          `The run was aborted while reading the approval of ${tool}, so the action was not run.`,
          interactionId,
        ),
      );
      throw error;
    }
  }

  /**
   * Asks about several actions in one question (the parallel calls of one
   * step): each action numbered and whole, with "Approve all", "Deny all"
   * and, where the service carries free text, "Approve only the numbers I
   * write" (e.g. `1,3`). A question that would pass the message limit is
   * split into several, never cut; an action too long to sit beside others
   * is asked on its own. Each action gets its own decision, named by its
   * own ticket (`<interaction id>#item<number>`), and its own audit record; an
   * answer approves only the items it names, and only the question it
   * answers. Waits for the answer, or with `context.allowPending` returns
   * `pending` per item; `checkApproval` reads an item's answer later.
   * Reminders and escalation apply to questions about one action only.
   */
  async requestApprovals(
    actions: readonly ApprovalAction[],
    context: ApprovalContext,
  ): Promise<ApprovalDecision[]> {
    const logger = this.#loggerFor(context);
    throwIfAborted(context.signal, actions.map((action) => action.toolName).join(", "));
    const readiness = await this.#readiness.check(context.signal);
    if (!readiness.ready) {
      return actions.map((action) =>
        this.#withSource(action, refusal(readiness.code, readiness.reason)),
      );
    }
    const choice = readiness.features.includes("free_text");
    const decisions = new Array<ApprovalDecision>(actions.length);
    // An action two people approve, or one offered a standing approval, is a question of its own.
    const alone = (action: ApprovalAction) =>
      (action.requiredApprovers ?? 1) > 1 || this.#offersStanding(action);
    const together = actions.filter((action) => !alone(action));
    // Where each action asked together sits among all the actions.
    const places = actions.flatMap((action, index) => (alone(action) ? [] : [index]));
    // Every question goes out at once: none waits for another's answer.
    const askedAlone = actions.map(async (action, index) => {
      if (alone(action)) decisions[index] = await this.requestApproval(action, context);
    });
    const askedTogether = (
      together.length === 0 ? [] : planBatchQuestions(together, { choice })
    ).map(async (plan) => {
      const items = plan.numbers.map((number) => ({
        number,
        action: together[number - 1] as ApprovalAction,
      }));
      const answers =
        plan.text === undefined
          ? [await this.requestApproval(items[0]!.action, context)]
          : await this.#askBatch(items, { ...plan, text: plan.text }, choice, context, logger);
      items.forEach((item, index) => {
        decisions[places[item.number - 1] as number] = answers[index] as ApprovalDecision;
      });
    });
    await Promise.all([...askedAlone, ...askedTogether]);
    return decisions;
  }

  /** Sends one batch question and waits for its answer (or, with `allowPending`, not). */
  async #askBatch(
    items: ReadonlyArray<{ number: number; action: ApprovalAction }>,
    plan: Required<BatchQuestionPlan>,
    choice: boolean,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<ApprovalDecision[]> {
    const { client, subscriptionLinkId, timeoutMs, pollIntervalMs, maxPollIntervalMs } =
      this.#options;
    const subject = `${items.length} actions (${[...new Set(items.map((item) => item.action.toolName))].join(", ")})`;
    const decideEach = (decide: (item: (typeof items)[number]) => ApprovalDecision) =>
      items.map((item) => this.#withSource(item.action, decide(item)));
    let accepted: AcceptedMessage;
    try {
      accepted = await client.sendMessage(
        {
          subscriptionLinkId,
          kind: "interaction",
          text: plan.text,
          options: [
            batchAnswer.approveAll,
            batchAnswer.denyAll,
            ...(choice ? [batchAnswer.approveSome] : []),
          ],
          expiresInSeconds:
            context.allowPending === true
              ? this.#options.pendingExpiresInSeconds
              : this.#options.messageExpiresInSeconds,
          metadata: redactValue({
            [batchAnswer.metadataKey]: items.map(({ number, action }) => ({
              number,
              tool: action.toolName,
              tool_call_id: action.toolCallId,
              fingerprint: action.fingerprint,
            })),
            ...(context.runId !== undefined ? { run_id: context.runId } : {}),
            ...(context.task !== undefined ? { task: context.task } : {}),
          }) as Record<string, unknown>,
        },
        { signal: context.signal },
      );
    } catch (error) {
      throwIfAborted(context.signal, subject, error);
      this.#readiness.forget();
      return decideEach(() =>
        refusal(
          "messaging_error",
          `The approval request for ${subject} could not be sent (${describeMessagingError(error)}), so no action of it was run.`,
        ),
      );
    }
    const { messageId, interactionId } = accepted;
    if (interactionId === undefined) {
      await cancelQuestion(client, messageId, logger);
      return decideEach(() =>
        refusal(
          "messaging_error",
          `The messaging service accepted the approval request for ${subject} (message "${messageId}") but gave no interaction id to read the answer from, so no action of it was run.`,
        ),
      );
    }
    const unusable = this.#unusableId(interactionId);
    if (unusable !== undefined) {
      await cancelQuestion(client, messageId, logger);
      return decideEach(() =>
        refusal(
          "messaging_error",
          unusableIdReason(subject, messageId, interactionId, unusable, "no action of it was"),
        ),
      );
    }
    for (const item of items) {
      this.#asked.set(batchItemId(interactionId, item.number), {
        fingerprint: item.action.fingerprint,
        messageId,
        link: subscriptionLinkId,
        questionText: plan.text,
        offered: plan.numbers,
      });
    }
    const itemId = (item: (typeof items)[number]) => batchItemId(interactionId, item.number);
    if (context.allowPending === true) {
      return decideEach((item) => ({
        outcome: "pending",
        fingerprint: item.action.fingerprint,
        interactionId: itemId(item),
      }));
    }
    let outcome: InteractionOutcome;
    try {
      outcome = await client.waitForInteraction(interactionId, {
        timeoutMs,
        signal: context.signal,
        ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
        ...(maxPollIntervalMs !== undefined ? { maxPollIntervalMs } : {}),
      });
    } catch (error) {
      if (error instanceof AbortedError || context.signal.aborted) {
        await cancelQuestion(client, messageId, logger);
        await decideEach((item) =>
          refusal(
            "aborted",
            `The run was aborted while asking for approval of "${item.action.toolName}", so the action was not run.`,
            itemId(item),
          ),
        );
        throw new AbortedError(
          `Waiting for approval of ${subject} was aborted; the question was withdrawn`,
          { cause: error },
        );
      }
      return decideEach((item) =>
        refusal(
          "messaging_error",
          `Waiting for the answer about ${subject} failed (${describeMessagingError(error)}), so the action was not run.`,
          itemId(item),
        ),
      );
    }
    if (outcome.status === "timeout") {
      const failure = await readDeliveryFailure(client, messageId, logger);
      if (!failure) await cancelQuestion(client, messageId, logger);
      return decideEach((item) =>
        failure
          ? refusal(
              "delivery_failed",
              deliveryFailedReason(item.action.toolName, failure.error),
              itemId(item),
            )
          : {
              outcome: "expired",
              reason: `No answer to the approval request for ${subject} came within ${formatDuration(timeoutMs)}; the request was withdrawn and the action was not run.`,
              interactionId: itemId(item),
            },
      );
    }
    if (outcome.status === "error") {
      await cancelQuestion(client, messageId, logger);
      const { error } = outcome;
      return decideEach((item) =>
        refusal(
          "messaging_error",
          `The messaging service failed while waiting for the answer about ${subject} (${describeMessagingError(error)}), so the action was not run.`,
          itemId(item),
        ),
      );
    }
    const { interaction } = outcome;
    return Promise.all(
      items.map(async (item) =>
        this.#withSource(
          item.action,
          await this.#conclude(item.action, interaction, itemId(item), messageId, logger, {
            interactionId,
            number: item.number,
          }),
        ),
      ),
    );
  }

  /**
   * Reads whether the question is still open (`GET /v1/interactions/{id}`
   * once; for an item of a batch question, its question's), deciding
   * nothing: `pending` only for an interaction of that id in state
   * `pending`; anything else is left to `checkApproval`, which the
   * agent's resume calls through the approval gate. `expiresAt` is the
   * interaction's `expires_at` when the service sends it. Rejects when the
   * interaction cannot be read.
   */
  async peekApproval(
    pending: { fingerprint: string; interactionId: string },
    context: { signal: AbortSignal },
  ): Promise<ApprovalPeek> {
    const pair = splitPairId(pending.interactionId);
    if (pair) return this.#peekTwo(pair, context);
    // An item of a batch question is answered with its question.
    const interactionId =
      parseBatchItemId(pending.interactionId)?.interactionId ?? pending.interactionId;
    const interaction = await this.#options.client.getInteraction(interactionId, {
      signal: context.signal,
    });
    if (interaction.interactionId !== interactionId || interaction.state !== "pending") {
      return { pending: false };
    }
    const expiresAt = expiresAtOf(interaction);
    return {
      pending: true,
      ...(expiresAt !== undefined ? { expiresAt: new Date(expiresAt) } : {}),
    };
  }

  /**
   * A question put to two links waits while one of them has not answered and
   * the other approved (or has not answered either); any other answer ends
   * the wait, so the run is resumed to read it.
   */
  async #peekTwo(pair: [string, string], context: { signal: AbortSignal }): Promise<ApprovalPeek> {
    const interactions = await Promise.all(
      pair.map((id) => this.#options.client.getInteraction(id, { signal: context.signal })),
    );
    const waiting = interactions.filter((interaction) => interaction.state === "pending");
    const approved = interactions.filter(
      (interaction) =>
        interaction.state === "answered" && interaction.answer?.optionId === "approve",
    );
    if (waiting.length === 0 || waiting.length + approved.length < pair.length) {
      return { pending: false };
    }
    const expiries = waiting.flatMap((interaction) => expiresAtOf(interaction) ?? []);
    return {
      pending: true,
      ...(expiries.length > 0 ? { expiresAt: new Date(Math.min(...expiries)) } : {}),
    };
  }

  async #send(
    action: ApprovalAction,
    context: ApprovalContext,
    logger: Logger,
    subscriptionLinkId: string = this.#options.subscriptionLinkId,
  ): Promise<AskedQuestion | RefusedDecision> {
    const { client, messageExpiresInSeconds, pendingExpiresInSeconds } = this.#options;
    const metadata = redactValue({
      fingerprint: action.fingerprint,
      tool: action.toolName,
      tool_call_id: action.toolCallId,
      ...(context.runId !== undefined ? { run_id: context.runId } : {}),
      ...(context.task !== undefined ? { task: context.task } : {}),
      // A channel that can shows the arguments ready to change ("Approve with changes").
      ...(this.#editsAllowed(action) ? { [editAnswer.metadataKey]: action.arguments } : {}),
      // The standing scope offered, so the answer is read against the scope the question stated.
      ...(this.#offersStanding(action) ? { [standingOptionId]: action.standing?.fingerprint } : {}),
    }) as Record<string, unknown>;
    // What a change must meet, so the channel can check it where the person types it: the
    // tool's own schema, whose property names (a `token` argument) are not secrets.
    if (this.#editsAllowed(action) && action.parameters !== undefined) {
      metadata[editAnswer.schemaMetadataKey] = action.parameters;
    }
    let accepted: AcceptedMessage;
    try {
      accepted = await client.sendMessage(
        {
          subscriptionLinkId,
          kind: "interaction",
          text: this.#questionText(action),
          options: [
            ...approvalOptions,
            ...(this.#editsAllowed(action) ? [editOption] : []),
            ...(this.#offersStanding(action) && action.standing
              ? [standingOption(action.standing)]
              : []),
          ],
          // A suspended run's person may answer hours later, after this process is gone.
          expiresInSeconds:
            context.allowPending === true ? pendingExpiresInSeconds : messageExpiresInSeconds,
          metadata,
        },
        { signal: context.signal },
      );
    } catch (error) {
      throwIfAborted(context.signal, action.toolName, error);
      // The link may have been revoked since the last check: look again next time.
      this.#readiness.forget();
      return refusal(
        "messaging_error",
        `The approval request for "${action.toolName}" could not be sent (${describeMessagingError(error)}), so the action was not run.`,
      );
    }
    if (accepted.interactionId === undefined) {
      await cancelQuestion(this.#options.client, accepted.messageId, logger);
      return refusal(
        "messaging_error",
        `The messaging service accepted the approval request for "${action.toolName}" (message "${accepted.messageId}") but gave no interaction id to read the answer from, so the action was not run.`,
      );
    }
    const unusable = this.#unusableId(accepted.interactionId);
    if (unusable !== undefined) {
      await cancelQuestion(this.#options.client, accepted.messageId, logger);
      return refusal(
        "messaging_error",
        unusableIdReason(
          `"${action.toolName}"`,
          accepted.messageId,
          accepted.interactionId,
          unusable,
          "the action was",
        ),
      );
    }
    this.#asked.set(accepted.interactionId, {
      fingerprint: action.fingerprint,
      messageId: accepted.messageId,
      link: subscriptionLinkId,
    });
    logger.debug(
      {
        fingerprint: action.fingerprint,
        messageId: accepted.messageId,
        interactionId: accepted.interactionId,
      },
      "approval question sent",
    );
    return { messageId: accepted.messageId, interactionId: accepted.interactionId };
  }

  /**
   * Puts the same question to `subscriptionLinkId` and
   * `secondSubscriptionLinkId` at once: both must approve it. The first
   * answer that is not an approval withdraws the other question and
   * refuses. With `allowPending` it answers `pending` for the pair
   * (`<first interaction>+<second interaction>`) as soon as both are out.
   */
  async #askTwo(
    action: ApprovalAction,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<ApprovalDecision> {
    const required = action.requiredApprovers ?? 1;
    const second = this.#options.secondSubscriptionLinkId;
    if (second === undefined || required > 2) {
      return refusal(
        "not_enough_approvers",
        second === undefined
          ? `"${action.toolName}" needs ${required} approvers, and this approver asks one link: give MessagingApprover a secondSubscriptionLinkId (another person's active consent link). The action was not run.`
          : `"${action.toolName}" needs ${required} approvers, and this approver asks at most two. The action was not run.`,
      );
    }
    this.#secondReadiness ??= new ApproverReadiness(this.#options.client, second);
    const readiness = await this.#secondReadiness.check(context.signal);
    if (!readiness.ready) return refusal(readiness.code, readiness.reason);
    const links = [this.#options.subscriptionLinkId, second] as const;
    const sent = await Promise.all(links.map((link) => this.#send(action, context, logger, link)));
    const [first, other] = sent;
    if (!first || !other || "outcome" in first || "outcome" in other) {
      for (const one of sent) {
        if (!("outcome" in one)) await cancelQuestion(this.#options.client, one.messageId, logger);
      }
      return sent.find((one): one is RefusedDecision => "outcome" in one) as RefusedDecision;
    }
    const id = pairId(first.interactionId, other.interactionId);
    this.#asked.set(id, {
      fingerprint: action.fingerprint,
      messageId: first.messageId,
      link: links.join("+"),
    });
    if (context.allowPending === true) {
      return { outcome: "pending", fingerprint: action.fingerprint, interactionId: id };
    }
    // Both waits run at once; an answer that is not an approval stops the other.
    const stop = new AbortController();
    const onAbort = () => stop.abort(context.signal.reason);
    context.signal.addEventListener("abort", onAbort, { once: true });
    try {
      const decisions = await Promise.all(
        [first, other].map(async (asked) => {
          try {
            const decision = await this.#wait(
              action,
              asked,
              { ...context, signal: stop.signal },
              logger,
              { alone: false },
            );
            if (decision.outcome !== "approved") stop.abort();
            return decision;
          } catch (error) {
            if (context.signal.aborted || !(error instanceof AbortedError)) throw error;
            // Withdrawn because the other approver did not approve: that answer decides.
            return undefined;
          }
        }),
      );
      return combineTwoApprovals(action, id, links, decisions);
    } finally {
      context.signal.removeEventListener("abort", onAbort);
    }
  }

  /** Reads both answers of a question put to two links (a suspended run), without asking again. */
  async #checkTwo(
    action: ApprovalAction,
    interactionId: string,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<ApprovalDecision> {
    const parts = splitPairId(interactionId);
    const second = this.#options.secondSubscriptionLinkId;
    if (!parts || second === undefined) {
      return refusal(
        "not_enough_approvers",
        `The approval of "${action.toolName}" was asked of two approvers, and this approver has no secondSubscriptionLinkId to read the second answer with, so the action was not run.`,
        interactionId,
      );
    }
    const links = [this.#options.subscriptionLinkId, second] as const;
    let unread: unknown;
    const decisions = await Promise.all(
      parts.map(async (part, index) => {
        let interaction: Interaction;
        try {
          interaction = await this.#options.client.getInteraction(part, {
            signal: context.signal,
          });
        } catch (error) {
          throwIfAborted(context.signal, action.toolName, error);
          if (context.allowPending === true) unread = error;
          return refusal(
            "messaging_error",
            `The answer of approver link ${links[index]} about "${action.toolName}" could not be read (${describeMessagingError(error)}), so the action was not run.`,
            interactionId,
          );
        }
        return this.#conclude(
          action,
          interaction,
          part,
          this.#asked.get(part)?.messageId ?? interaction.messageId,
          logger,
        );
      }),
    );
    if (unread !== undefined) return this.#stillPending(action, interactionId, unread, logger);
    return combineTwoApprovals(action, interactionId, links, decisions);
  }

  /**
   * A suspended run reads its answer and the service cannot be reached:
   * the question stays open and so does the run (it suspends again and is
   * checked later), rather than refuse an action the person may have approved.
   */
  #stillPending(
    action: ApprovalAction,
    interactionId: string,
    error: unknown,
    logger: Logger,
  ): ApprovalDecision {
    logger.warn(
      { interactionId, tool: action.toolName, error: describeMessagingError(error) },
      "the answer could not be read; the approval stays pending",
    );
    return { outcome: "pending", fingerprint: action.fingerprint, interactionId };
  }

  async #wait(
    action: ApprovalAction,
    first: AskedQuestion,
    context: ApprovalContext,
    logger: Logger,
    { alone = true }: { alone?: boolean } = {},
  ): Promise<ApprovalDecision> {
    const { client, timeoutMs, pollIntervalMs, maxPollIntervalMs } = this.#options;
    const tool = `"${action.toolName}"`;
    let asked = first;
    let waited = 0;
    let outcome: InteractionOutcome | undefined;
    // Wait in stretches: up to the reminder, up to the escalation, up to the end.
    // A question put to two approvers is neither moved to a third nor reminded of.
    const checkpoints = alone ? this.#checkpoints() : [];
    for (const checkpoint of [...checkpoints, { atMs: timeoutMs, kind: "end" as const }]) {
      try {
        outcome = await client.waitForInteraction(asked.interactionId, {
          timeoutMs: Math.max(1, checkpoint.atMs - waited),
          signal: context.signal,
          ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
          ...(maxPollIntervalMs !== undefined ? { maxPollIntervalMs } : {}),
        });
      } catch (error) {
        if (error instanceof AbortedError || context.signal.aborted) {
          await cancelQuestion(this.#options.client, asked.messageId, logger);
          throw new AbortedError(
            `Waiting for approval of ${tool} was aborted; the question was withdrawn`,
            { cause: error },
          );
        }
        return refusal(
          "messaging_error",
          `Waiting for the answer about ${tool} failed (${describeMessagingError(error)}), so the action was not run.`,
          asked.interactionId,
        );
      }
      waited = checkpoint.atMs;
      if (outcome.status !== "timeout" || checkpoint.kind === "end") break;
      if (checkpoint.kind === "remind") {
        await this.#remind(action, asked, timeoutMs - waited, logger);
        continue;
      }
      const moved = await this.#escalate(action, asked, context, logger);
      if ("outcome" in moved) return moved;
      asked = moved;
    }
    const { messageId, interactionId } = asked;
    if (outcome === undefined) throw new Error("unreachable: the wait always runs once");
    if (outcome.status === "timeout") {
      const failure = await readDeliveryFailure(this.#options.client, messageId, logger);
      if (failure) {
        return refusal(
          "delivery_failed",
          deliveryFailedReason(action.toolName, failure.error),
          interactionId,
        );
      }
      await cancelQuestion(this.#options.client, messageId, logger);
      // Nobody answered in time: an expiry, never a denial.
      return {
        outcome: "expired",
        reason: `No answer to the approval request for ${tool} came within ${formatDuration(timeoutMs)}; the request was withdrawn and the action was not run.`,
        interactionId,
      };
    }
    if (outcome.status === "error") {
      await cancelQuestion(this.#options.client, messageId, logger);
      return refusal(
        "messaging_error",
        `The messaging service failed while waiting for the answer about ${tool} (${describeMessagingError(outcome.error)}), so the action was not run.`,
        interactionId,
      );
    }
    return this.#conclude(action, outcome.interaction, interactionId, messageId, logger);
  }

  /** Whether questions about `action` offer a standing approval (the policy's scope, and `offerStanding`). */
  #offersStanding(action: ApprovalAction): boolean {
    return this.#options.offerStanding && action.standing !== undefined;
  }

  /** Whether questions about `action` offer an edit: never when two people must approve it. */
  #editsAllowed(action: ApprovalAction): boolean {
    return this.#options.allowEdits && (action.requiredApprovers ?? 1) < 2;
  }

  /**
   * The question as sent; with edits allowed, it shows the arguments to
   * change and how; with a standing approval offered, it states its scope.
   */
  #questionText(action: ApprovalAction): string {
    const plain = buildApprovalMessageText(action);
    const question =
      this.#offersStanding(action) && action.standing
        ? `${plain}\n${describeStandingScope(action.standing)}`
        : plain;
    if (!this.#editsAllowed(action)) return question;
    const how = `Or choose "${editOption.label}" and reply with the whole arguments as JSON`;
    const redacted = redactValue(action.arguments);
    let args: string;
    try {
      // JSON as JSON, on one line, with what would act on the text around it written as JSON escapes.
      args = editableJson(redacted);
    } catch {
      return question;
    }
    const shownAbove = action.description?.details?.some(
      (detail) =>
        typeof detail === "object" &&
        detail !== null &&
        detail.text === JSON.stringify(redacted, null, 2),
    );
    return shownAbove
      ? `${question}\n${how}; they are shown above.`
      : `${question}\n${how}; they are now: ${args}`;
  }

  /** When, counted from the question, to remind and to escalate (inside `timeoutMs`). */
  #checkpoints(): Array<{ atMs: number; kind: "remind" | "escalate" }> {
    const { timeoutMs, reminderBeforeExpiryMs, escalation } = this.#options;
    const checkpoints: Array<{ atMs: number; kind: "remind" | "escalate" }> = [];
    if (reminderBeforeExpiryMs !== undefined && reminderBeforeExpiryMs < timeoutMs) {
      checkpoints.push({ atMs: timeoutMs - reminderBeforeExpiryMs, kind: "remind" });
    }
    if (escalation !== undefined && escalation.afterMs < timeoutMs) {
      checkpoints.push({ atMs: escalation.afterMs, kind: "escalate" });
    }
    return checkpoints.sort((a, b) => a.atMs - b.atMs);
  }

  /** A notification to the link the question is waiting on: it has not been answered yet. */
  async #remind(
    action: ApprovalAction,
    asked: AskedQuestion,
    leftMs: number,
    logger: Logger,
  ): Promise<void> {
    const link = this.#asked.get(asked.interactionId)?.link ?? this.#options.subscriptionLinkId;
    try {
      await this.#options.client.sendMessage({
        subscriptionLinkId: link,
        kind: "notification",
        text: `Reminder: the approval question about ${escapeUntrustedText(action.toolName)} is still waiting for your answer. It expires in ${formatDuration(leftMs)}; if nobody answers, the action is not run.`,
      });
    } catch (error) {
      // A reminder that cannot be sent changes nothing about the question.
      logger.warn(
        { error: describeMessagingError(error) },
        "the approval reminder could not be sent",
      );
    }
  }

  /**
   * Nobody answered the first approver: the question is withdrawn from them
   * and the same question goes to the escalation link. An answer the first
   * link gives after this reads a withdrawn interaction and approves nothing.
   */
  async #escalate(
    action: ApprovalAction,
    asked: AskedQuestion,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<AskedQuestion | RefusedDecision> {
    const escalation = this.#options.escalation!;
    await cancelQuestion(this.#options.client, asked.messageId, logger);
    logger.info(
      { interactionId: asked.interactionId, to: escalation.subscriptionLinkId },
      "no answer from the first approver; asking the escalation link",
    );
    return this.#send(action, context, logger, escalation.subscriptionLinkId);
  }

  /**
   * The decision an interaction gives for `action`; with `item`, for the
   * action of that number in a batch question (`interactionId` is then the
   * item's id, and `item.interactionId` the question's).
   */
  async #conclude(
    action: ApprovalAction,
    interaction: Interaction,
    interactionId: string,
    messageId: string | undefined,
    logger: Logger,
    item?: BatchItemId,
  ): Promise<ApprovalDecision> {
    const expected = {
      interactionId: item?.interactionId ?? interactionId,
      fingerprint: action.fingerprint,
      recordedFingerprint: this.#asked.get(interactionId)?.fingerprint,
      toolName: action.toolName,
      editsAllowed: this.#editsAllowed(action),
      standingFingerprint: this.#offersStanding(action) ? action.standing?.fingerprint : undefined,
    };
    const verdict = item
      ? judgeBatchItem(interaction, {
          ...expected,
          number: item.number,
          offered: this.#asked.get(interactionId)?.offered,
        })
      : judgeInteraction(interaction, expected);
    switch (verdict.outcome) {
      case "approved":
        // The person who answered is the one behind the subscription link asked.
        return {
          outcome: "approved",
          fingerprint: action.fingerprint,
          interactionId,
          approvedBy: `subscription link ${this.#asked.get(interactionId)?.link ?? this.#options.subscriptionLinkId}`,
          ...(verdict.note !== undefined ? { note: verdict.note } : {}),
          ...(verdict.outcome === "approved" && "standing" in verdict && action.standing
            ? { standing: { fingerprint: action.standing.fingerprint } }
            : {}),
        };
      case "expired":
        return { outcome: "expired", reason: verdict.reason, interactionId };
      case "edited": {
        let fingerprint: string;
        try {
          fingerprint = actionFingerprint(action.toolName, verdict.arguments, action.target);
        } catch {
          return refusal(
            "invalid_edit",
            `The change to "${action.toolName}" the approver sent cannot be bound to an approval, so nothing was run.`,
            interactionId,
          );
        }
        return {
          outcome: "approved",
          fingerprint,
          interactionId,
          editedArguments: verdict.arguments,
          approvedBy: `subscription link ${this.#asked.get(interactionId)?.link ?? this.#options.subscriptionLinkId}`,
        };
      }
      case "pending":
        return { outcome: "pending", fingerprint: action.fingerprint, interactionId };
      case "failed": {
        const failure =
          messageId === undefined
            ? undefined
            : await readDeliveryFailure(this.#options.client, messageId, logger);
        return refusal(
          "delivery_failed",
          deliveryFailedReason(action.toolName, failure?.error),
          interactionId,
        );
      }
      default:
        return refusal(verdict.code, verdict.reason, interactionId, verdict.note);
    }
  }

  /** The decision with where it came from (the link the question went to, the question's digest), for the agent's audit record. */
  #withSource(action: ApprovalAction, given: ApprovalDecision): ApprovalDecision {
    // A question went out: the decision names the link it went to and what it said.
    // A batch item's question is known only to the process that sent it.
    const asked =
      given.outcome === "pending" || given.interactionId === undefined
        ? undefined
        : this.#asked.get(given.interactionId);
    const questionText =
      asked?.questionText ??
      (given.interactionId !== undefined && parseBatchItemId(given.interactionId)
        ? undefined
        : this.#questionText(action));
    const decision: ApprovalDecision =
      given.outcome === "pending" || given.interactionId === undefined
        ? given
        : {
            ...given,
            approverLink: asked?.link ?? this.#options.subscriptionLinkId,
            ...(questionText !== undefined ? { questionDigest: textDigest(questionText) } : {}),
          };
    return decision;
  }

  /**
   * Why the interaction id a question came back with cannot name its
   * answer, or undefined when it can (and it is then taken): an id given to
   * an earlier question would read that question's answer.
   */
  #unusableId(interactionId: string): string | undefined {
    if (holdsIdSeparator(interactionId)) {
      return 'which holds "#" or "+" (the separators of the tickets answers are read by)';
    }
    if (this.#interactionIds.has(interactionId)) return "which an earlier question was given";
    this.#interactionIds.add(interactionId);
    return undefined;
  }

  #loggerFor(context: ApprovalContext): Logger {
    return componentLogger(this.#options.logger ?? context?.logger, "messaging-approver");
  }
}

/**
 * Whether an interaction id holds `#` or `+`, the separators of the tickets
 * this approver reads answers by (`<id>#item<n>` for an item of a batch
 * question, `<first>+<second>` for a question put to two links; approvals
 * are spent under the agent's approval ids): read back, such an id would
 * name another question's answer, so it is refused.
 */
function holdsIdSeparator(interactionId: string): boolean {
  return /[#+]/.test(interactionId);
}

function unusableIdReason(
  subject: string,
  messageId: string,
  interactionId: string,
  why: string,
  notRun: string,
): string {
  return `The messaging service accepted the approval request for ${subject} (message "${messageId}") but named its interaction "${escapeUntrustedText(interactionId).slice(0, 100)}", ${why}, so its answer could be read as another question's; ${notRun} not run.`;
}

/** An interaction's `expires_at` in milliseconds, when the service sent a readable one. */
function expiresAtOf(interaction: Interaction): number | undefined {
  const time =
    typeof interaction.expires_at === "string" ? Date.parse(interaction.expires_at) : Number.NaN;
  return Number.isNaN(time) ? undefined : time;
}
