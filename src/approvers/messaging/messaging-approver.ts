import { setTimeout as sleep } from "node:timers/promises";
import { viewOfAction } from "../../agent/approval/action-view.js";
import type {
  ApprovalAction,
  ApprovalContext,
  ApprovalDecision,
  ApprovalPeek,
  Approver,
  RefusedDecision,
} from "../../agent/approver.js";
import { batchAnswer } from "../../clients/messaging/batch-answer.js";
import {
  editAnswer,
  maximumMessageTextLength,
} from "../../clients/messaging/messaging-requests.js";
import type { AcceptedMessage, Interaction } from "../../clients/messaging/messaging-types.js";
import type { InteractionOutcome } from "../../clients/messaging/wait-options.js";
import { AbortedError } from "../../errors/transport-errors.js";
import { actionFingerprint, textDigest } from "../../internal/canonical-json.js";
import { componentLogger, type Logger } from "../../internal/logger.js";
import { attachSecrets, redactValue, secretsOf } from "../../internal/redact.js";
import { escapeUntrustedText } from "../../internal/untrusted-text.js";
import {
  approvalOptions,
  buildApprovalMessageText,
  describeStandingScope,
  editOption,
  standingOption,
  standingOptionId,
  whoIsAskedLine,
} from "./approval-message-text.js";
import { formatDuration, refusal, throwIfAborted } from "./approval-refusal.js";
import { ApproverReadiness } from "./approver-readiness.js";
import { planBatchQuestions } from "./batch-question-text.js";
import { combineApprovals, type PersonAnswer } from "./combine-approvals.js";
import { describeMessagingError } from "./describe-messaging-error.js";
import { judgeBatchItem } from "./judge-batch-item.js";
import { deliveryFailedReason, judgeInteraction, questionDigestKey } from "./judge-interaction.js";
import { cancelQuestion, readDeliveryFailure } from "./message-follow-up.js";
import {
  type MessagingApproverOptions,
  type ResolvedMessagingApproverOptions,
  resolveMessagingApproverOptions,
} from "./messaging-approver-options.js";
import {
  maximumQuestionsSent,
  questionName,
  readTicket,
  type SentQuestion,
  type TicketEscalation,
  type TicketItem,
  type TicketQuestion,
  writeTicket,
} from "./messaging-ticket.js";
import { questionIdempotencyKey } from "./question-idempotency-key.js";
import { describePerson, personToReach, reachPeople } from "./reach-people.js";

/** The metadata key holding a question's line saying who is asked and how many must approve. */
const whoIsAskedKey = "who_is_asked";

/** An action in a question, with what the ticket recorded of it. */
interface AskedItem {
  action: ApprovalAction;
  item: TicketItem;
}

/**
 * Asks a person, through the messaging service, before a destructive action
 * runs (docs/contract.md §4), in the three verbs of an `Approver`. `ask`
 * sends the question: one interaction for one action, worded so a person
 * can judge it, or one numbered question for several (split where it would
 * pass the message limit, never cut), with an action that needs two
 * approvers or offers a standing approval asked on its own. An action
 * whose `whoMayApprove` lists people (an agent with an `approverDirectory`)
 * is put to those people, each on their first active messaging link, and
 * approved once `required` of them approved it: any denial refuses, the
 * escalation's people are asked too when nobody decided in time, and the
 * questions still open are withdrawn once the answers decide
 * (docs/messaging.md). It hands back a ticket (JSON naming each
 * question's interaction and the approval ids it asks about), which works in a new process with a new approver. `read`
 * waits up to `timeoutMs` for the answers (or, with `context.allowPending`,
 * reads once); `peek` reads whether they are still awaited.
 *
 * Only an answer `approve` to the interaction asked about, for the action's
 * exact fingerprint, approves. Each interaction the service hands out is
 * bound to its question in the agent's run store (`RunStore.bindInteraction`):
 * one that holds another question, of any run in any process, approves
 * nothing here. Everything else is a refusal with a `code`
 * and a `reason` the model can read: `denied`, `canceled`,
 * `delivery_failed`, `approver_unavailable`, `timeout`, `unreadable_answer`,
 * `messaging_error`, `fingerprint_mismatch`. A question nobody answered in
 * time (the service's expiry, or `timeoutMs`) is `expired`, its own
 * outcome. The agent spends an approval when its call starts. An abort
 * while waiting withdraws the question and throws `AbortedError`.
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
  /** Every interaction id the service gave a question of this approver's. */
  readonly #interactionIds = new Set<string>();
  /** Readiness of each person's link asked, by link (the service's features, checked once). */
  readonly #readinessByLink = new Map<string, ApproverReadiness>();
  /** The escalation questions this approver sent, by approval id and link: a later read asks no one twice. */
  readonly #escalated = new Map<string, SentQuestion>();

  constructor(options: MessagingApproverOptions) {
    this.#options = resolveMessagingApproverOptions(options);
    // An agent using this approver redacts its client's token too.
    attachSecrets(this, secretsOf(this.#options.client));
    this.#readiness = new ApproverReadiness(this.#options.client, this.#options.subscriptionLinkId);
  }

  /**
   * Checks the approver can be reached (once, remembered on success) and
   * sends the questions about `actions`, all at once. A question that
   * cannot be sent is kept in the ticket with its refusal, which `read`
   * gives its actions.
   */
  async ask(actions: readonly ApprovalAction[], context: ApprovalContext): Promise<string> {
    const logger = this.#loggerFor(context);
    throwIfAborted(context.signal, actions.map((action) => action.toolName).join(", "));
    // An action whose people the agent's directory names, with messaging links, is put to them, each
    // on a question of its own. People the directory gives no messaging link answer elsewhere (the
    // command line's terminal, say): their question goes to this approver's own links, and the
    // gate judges whoever answers against the directory.
    const toPeople = actions.filter(asksPeopleOnMessaging);
    const toLinks = actions.filter((action) => !asksPeopleOnMessaging(action));
    const [people, links] = await Promise.all([
      Promise.all(toPeople.map((action) => this.#askPeople(action, context, logger))),
      toLinks.length === 0 ? [] : this.#askLinks(toLinks, context, logger),
    ]);
    return writeTicket([...people, ...links]);
  }

  /** Sends the questions about `actions` to the approver's own links (the readiness of the first checked first). */
  async #askLinks(
    actions: readonly ApprovalAction[],
    context: ApprovalContext,
    logger: Logger,
  ): Promise<TicketQuestion[]> {
    const readiness = await this.#readiness.check(context.signal);
    if (!readiness.ready) {
      const refused = { code: readiness.code, reason: readiness.reason };
      return [{ items: actions.map((action) => itemOf(action)), refused }];
    }
    // An action two people approve, or one offered a standing approval, is a question of its own.
    const alone = (action: ApprovalAction) =>
      actions.length === 1 || requiredOf(action) > 1 || this.#offersStanding(action);
    const together = actions.filter((action) => !alone(action));
    const choice = readiness.features.includes("free_text");
    const plans = together.length === 0 ? [] : planBatchQuestions(together, { choice });
    return Promise.all([
      ...actions.filter(alone).map((action) => this.#askOne(action, context, logger)),
      ...plans.map((plan) => {
        const items = plan.numbers.map((number) => ({
          action: together[number - 1] as ApprovalAction,
          item: itemOf(together[number - 1] as ApprovalAction, number),
        }));
        return plan.text === undefined
          ? this.#askOne(items[0]!.action, context, logger)
          : this.#askBatch(items, plan.text, choice, context, logger);
      }),
    ]);
  }

  /**
   * The answers to the questions `ticket` names, for `actions` (matched by
   * approval id), each question read once: waited for up to `timeoutMs`
   * (with the reminder and escalation, for a question about one action to
   * one link), or with `context.allowPending` read once, `pending` while
   * nobody answered. It works in a new process with a new approver: the
   * ticket says which interaction holds each answer, and the answer must
   * carry the fingerprint asked about. When the service cannot be reached
   * and the run may wait, the decision is `pending` again, rather than
   * refuse an action the person may have approved.
   */
  async read(
    ticket: string,
    actions: readonly ApprovalAction[],
    context: ApprovalContext,
  ): Promise<ApprovalDecision[]> {
    const logger = this.#loggerFor(context);
    const questions = readTicket(ticket);
    const unasked = (action: ApprovalAction) =>
      refusal(
        "messaging_error",
        `The approval of "${action.toolName}" was not asked under the ticket this run kept, so its answer cannot be read; the action was not run.`,
      );
    if (questions === undefined) return actions.map(unasked);
    const decisions = new Map<string, ApprovalDecision>();
    await Promise.all(
      questions.map(async (question) => {
        const asked = question.items.flatMap((item) => {
          const action = actions.find((one) => one.approvalId === item.approvalId);
          return action ? [{ action, item }] : [];
        });
        if (asked.length === 0) return;
        const read = await this.#readQuestion(question, asked, context, logger);
        asked.forEach(({ action }, index) => {
          decisions.set(action.approvalId, this.#withSource(question, read[index]!));
        });
      }),
    );
    return actions.map((action) => decisions.get(action.approvalId) ?? unasked(action));
  }

  /**
   * Reads whether the questions `ticket` names about `approvalIds` are
   * still open (`GET /v1/interactions/{id}` once each), deciding nothing:
   * `pending` while every one of them waits for its answer; anything else is left to
   * `read`, which the agent's resume calls through the approval gate.
   * `expiresAt` is the earliest `expires_at` the service sends. Rejects
   * when an interaction cannot be read.
   */
  async peek(
    ticket: string,
    approvalIds: readonly string[],
    context: { signal: AbortSignal },
  ): Promise<ApprovalPeek> {
    // Only the questions of the approvals still awaited: one answered earlier decided its own calls.
    const questions = readTicket(ticket)?.filter((question) =>
      question.items.some((item) => approvalIds.includes(item.approvalId)),
    );
    if (questions === undefined || questions.length === 0) return { pending: false };
    let expiresAt: number | undefined;
    for (const question of questions) {
      if (question.sent === undefined) return { pending: false };
      const interactions = await Promise.all(
        question.sent.map((sent) =>
          this.#options.client.getInteraction(sent.interactionId, { signal: context.signal }),
        ),
      );
      // A question put to several waits while some have not answered, the others approved, and too few did.
      const waiting = interactions.filter(
        (interaction, index) =>
          interaction.interactionId === question.sent![index]!.interactionId &&
          interaction.state === "pending",
      );
      const approved = interactions.filter(
        (interaction) =>
          interaction.state === "answered" && interaction.answer?.optionId === "approve",
      );
      if (
        waiting.length === 0 ||
        waiting.length + approved.length < interactions.length ||
        approved.length >= (question.required ?? interactions.length)
      ) {
        return { pending: false };
      }
      const times = waiting.map(expiresAtOf);
      // Once the escalation is due, the run is resumed so that its read asks the next people.
      if (question.escalation !== undefined) {
        const due = escalationDue(question.escalation);
        if (due <= Date.now()) return { pending: false };
        times.push(due);
      }
      for (const at of times) {
        if (at !== undefined && (expiresAt === undefined || at < expiresAt)) expiresAt = at;
      }
    }
    return {
      pending: true,
      ...(expiresAt !== undefined ? { expiresAt: new Date(expiresAt) } : {}),
    };
  }

  /**
   * Sends the question about one action to the people `whoMayApprove`
   * names, each on their first active messaging link (those who cannot be
   * reached are skipped, with a warning); refused at once, asking nobody,
   * when fewer than `required` of them (counting the escalation's people)
   * can be asked, or when fewer than that took the question.
   */
  async #askPeople(
    action: ApprovalAction,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<TicketQuestion> {
    const who = action.whoMayApprove!;
    const items = [itemOf(action)];
    const { client } = this.#options;
    const allowed = (person: { id: string }) => person.id !== who.excluded;
    const people = (who.people ?? []).filter(allowed);
    const asked = new Set(people.map((person) => person.id));
    const later = (who.escalation?.people ?? []).filter(
      (person) => allowed(person) && !asked.has(person.id),
    );
    if (people.length > maximumQuestionsSent || later.length > maximumQuestionsSent) {
      const reason = `"${action.toolName}" would be put to ${Math.max(people.length, later.length)} people at once, more than the ${maximumQuestionsSent} one question is sent to: narrow the rule's roles (or its escalation's). Nobody was asked and the action was not run.`;
      return { items, refused: { code: "approver_unavailable", reason } };
    }
    const [now, next] = await Promise.all([
      reachPeople(client, people.map(personToReach), context.signal),
      reachPeople(client, later.map(personToReach), context.signal),
    ]);
    for (const why of [...now.unreachable, ...next.unreachable]) {
      logger.warn({ approver: why }, "an approver cannot be asked on messaging; skipped");
    }
    const required = who.required;
    const notEnough = (count: number, more: readonly string[]) => {
      const reason = `"${action.toolName}" needs ${required} approver${required === 1 ? "" : "s"}, and only ${count} of the people who may approve it can be asked on messaging${more.length > 0 ? `: ${more.join("; ")}` : ""}. Nobody was asked and the action was not run.`;
      return { items, refused: { code: "not_enough_approvers" as const, reason } };
    };
    if (now.reached.length + next.reached.length < required || now.reached.length === 0) {
      return notEnough(now.reached.length + next.reached.length, [
        ...now.unreachable,
        ...next.unreachable,
      ]);
    }
    const first = now.reached[0]!.link;
    const readiness = this.#readinessByLink.get(first) ?? new ApproverReadiness(client, first);
    this.#readinessByLink.set(first, readiness);
    const ready = await readiness.check(context.signal);
    if (!ready.ready) return { items, refused: { code: ready.code, reason: ready.reason } };
    const escalation =
      who.escalation !== undefined && later.length > 0
        ? {
            askedAt: new Date().toISOString(),
            afterMs: who.escalation.afterMs,
            people: later.map((person) => ({
              person: person.id,
              name: person.name,
              links: [...(person.identities.messaging ?? [])],
            })),
          }
        : undefined;
    const whoIsAsked = whoIsAskedLine({
      asked: now.reached.map((person) => person.name),
      required,
      ...(escalation !== undefined && who.escalation !== undefined
        ? {
            escalation: {
              names: next.reached.map((person) => person.name),
              roles: who.escalation.roles,
              afterMs: who.escalation.afterMs,
            },
          }
        : {}),
    });
    const text = this.#questionText(action, whoIsAsked);
    const results = await Promise.all(
      now.reached.map(async (person) => {
        const one = await this.#send(action, text, context, logger, person.link, whoIsAsked);
        return "outcome" in one ? one : ({ ...one, person: person.person } as SentQuestion);
      }),
    );
    const sent = results.filter((one): one is SentQuestion => !("outcome" in one));
    const failed = results.filter((one): one is RefusedDecision => "outcome" in one);
    for (const one of failed) {
      logger.warn({ reason: one.reason }, "an approver's question could not be sent; skipped");
    }
    if (sent.length === 0 || sent.length + next.reached.length < required) {
      for (const one of sent) await cancelQuestion(client, one.messageId, logger);
      const refused = failed[0]!;
      return { items, refused: { code: refused.code, reason: refused.reason } };
    }
    return {
      items,
      sent,
      digest: textDigest(text),
      required,
      whoIsAsked,
      ...(escalation !== undefined ? { escalation } : {}),
    };
  }

  /**
   * Asks the people of `question`'s escalation not asked yet, each on their
   * first active link, with the question the others were sent: the same
   * text and `Idempotency-Key` whichever process asks, so a resumed run
   * that asks again reads the questions already out. Those who cannot be
   * reached, or whose question cannot be sent, are skipped with a warning.
   */
  async #escalateToPeople(
    action: ApprovalAction,
    question: TicketQuestion,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<SentQuestion[]> {
    const escalation = question.escalation as TicketEscalation;
    const asked = new Set(question.sent?.map((sent) => sent.person));
    const people = escalation.people
      .filter((person) => !asked.has(person.person))
      .map((person) => ({ id: person.person, name: person.name, links: person.links }));
    const { reached, unreachable } = await reachPeople(
      this.#options.client,
      people,
      context.signal,
    );
    for (const why of unreachable) {
      logger.warn(
        { approver: why },
        "an escalation approver cannot be asked on messaging; skipped",
      );
    }
    logger.info(
      { people: reached.map((person) => person.person) },
      "nobody decided in time; asking the escalation's people too",
    );
    const text = this.#questionText(action, question.whoIsAsked);
    const sent = await Promise.all(
      reached.map(async (person) => {
        const key = `${action.approvalId}\n${person.link}`;
        const known = this.#escalated.get(key);
        if (known !== undefined) return known;
        const one = await this.#send(
          action,
          text,
          context,
          logger,
          person.link,
          question.whoIsAsked,
        );
        if ("outcome" in one) {
          logger.warn(
            {
              approver: describePerson({ id: person.person, name: person.name }),
              reason: one.reason,
            },
            "an escalation approver's question could not be sent; skipped",
          );
          return undefined;
        }
        const asked = { ...one, person: person.person };
        this.#escalated.set(key, asked);
        return asked;
      }),
    );
    return sent.filter((one): one is SentQuestion => one !== undefined);
  }

  /** Sends the question about one action: to one link, or to two when it needs two approvers. */
  async #askOne(
    action: ApprovalAction,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<TicketQuestion> {
    const items = [itemOf(action)];
    const text = this.#questionText(action);
    const digest = textDigest(text);
    const required = action.requiredApprovers ?? 1;
    if (required < 2) {
      const sent = await this.#send(action, text, context, logger);
      return "outcome" in sent
        ? { items, refused: { code: sent.code, reason: sent.reason } }
        : { items, sent: [sent], digest };
    }
    const second = this.#options.secondSubscriptionLinkId;
    if (second === undefined || required > 2) {
      const reason =
        second === undefined
          ? `"${action.toolName}" needs ${required} approvers, and this approver asks one link: give MessagingApprover a secondSubscriptionLinkId (another person's active consent link). The action was not run.`
          : `"${action.toolName}" needs ${required} approvers, and this approver asks at most two. The action was not run.`;
      return { items, refused: { code: "not_enough_approvers", reason } };
    }
    this.#secondReadiness ??= new ApproverReadiness(this.#options.client, second);
    const readiness = await this.#secondReadiness.check(context.signal);
    if (!readiness.ready)
      return { items, refused: { code: readiness.code, reason: readiness.reason } };
    const links = [this.#options.subscriptionLinkId, second];
    const sent = await Promise.all(
      links.map((link) => this.#send(action, text, context, logger, link)),
    );
    const failed = sent.find((one): one is RefusedDecision => "outcome" in one);
    if (failed === undefined) return { items, sent: sent as SentQuestion[], digest };
    for (const one of sent) {
      if (!("outcome" in one)) await cancelQuestion(this.#options.client, one.messageId, logger);
    }
    return { items, refused: { code: failed.code, reason: failed.reason } };
  }

  /** Sends one question about several actions, each numbered and whole. */
  async #askBatch(
    asked: readonly AskedItem[],
    text: string,
    choice: boolean,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<TicketQuestion> {
    const { client, subscriptionLinkId } = this.#options;
    const items = asked.map(({ item }) => item);
    const subject = subjectOf(asked);
    let accepted: AcceptedMessage;
    try {
      accepted = await client.sendMessage(
        {
          subscriptionLinkId,
          kind: "interaction",
          text,
          options: [
            batchAnswer.approveAll,
            batchAnswer.denyAll,
            ...(choice ? [batchAnswer.approveSome] : []),
          ],
          ...this.#expiresIn(context),
          metadata: redactValue({
            [batchAnswer.metadataKey]: asked.map(({ action, item }) => ({
              number: item.number,
              tool: action.toolName,
              tool_call_id: action.toolCallId,
              fingerprint: action.fingerprint,
            })),
            ...(context.runId !== undefined ? { run_id: context.runId } : {}),
            ...(context.task !== undefined ? { task: context.task } : {}),
            [questionDigestKey]: textDigest(text),
          }) as Record<string, unknown>,
        },
        {
          signal: context.signal,
          idempotencyKey: questionIdempotencyKey(
            asked.map(({ action }) => action.approvalId),
            subscriptionLinkId,
          ),
        },
      );
    } catch (error) {
      throwIfAborted(context.signal, subject, error);
      this.#readiness.forget();
      const reason = `The approval request for ${subject} could not be sent (${describeMessagingError(error)}), so no action of it was run.`;
      return { items, refused: { code: "messaging_error", reason } };
    }
    const sent = await this.#taken(accepted, subject, "no action of it was", logger, {
      link: subscriptionLinkId,
      question: questionName(items),
      context,
    });
    if ("outcome" in sent) return { items, refused: { code: sent.code, reason: sent.reason } };
    return { items, sent: [{ ...sent, link: subscriptionLinkId }], digest: textDigest(text) };
  }

  /** One question's answers, in the order of `asked`. */
  async #readQuestion(
    question: TicketQuestion,
    asked: readonly AskedItem[],
    context: ApprovalContext,
    logger: Logger,
  ): Promise<ApprovalDecision[]> {
    const { refused, sent } = question;
    if (refused !== undefined || sent === undefined || sent.length === 0) {
      const code = refused?.code ?? "messaging_error";
      const reason =
        refused?.reason ?? "The approval request was not sent, so the action was not run.";
      return asked.map(() => refusal(code, reason));
    }
    const unbound = await this.#bindOnRead(question, sent, asked, context, logger);
    if (unbound !== undefined) return unbound;
    const { digest } = question;
    const first = sent[0] as SentQuestion;
    if (sent.length > 1 || question.required !== undefined) {
      const { action, item } = asked[0] as AskedItem;
      return [await this.#readPeople(action, item, question, context, logger)];
    }
    // A question about several actions: each read by the number it was shown under.
    const numbers = question.items.every((item) => item.number !== undefined)
      ? question.items.map((item) => item.number as number)
      : undefined;
    const conclude = (interaction: Interaction) =>
      Promise.all(
        asked.map(({ action, item }) =>
          this.#conclude(action, item, interaction, first, logger, { numbers, digest }),
        ),
      );
    if (context.allowPending === true) {
      const interaction = await this.#readOnce(first, subjectOf(asked), context, logger);
      if (interaction === undefined) {
        return asked.map(() => ({ outcome: "pending", interactionId: first.interactionId }));
      }
      return conclude(interaction);
    }
    if (numbers === undefined) {
      const { action, item } = asked[0] as AskedItem;
      return [await this.#wait(action, item, first, context, logger, { digest })];
    }
    const subject = subjectOf(asked);
    const outcome = await this.#waitFor(first, subject, this.#options.timeoutMs, context, logger);
    if ("outcome" in outcome) return asked.map(() => outcome);
    if (outcome.status === "timeout" || outcome.status === "error") {
      return this.#unanswered(
        outcome,
        first,
        asked.map(({ action }) => action),
        logger,
      );
    }
    return conclude(outcome.interaction);
  }

  /**
   * The answers of the people (or the two links) a question went to, as
   * one decision ({@link combineApprovals}): waited for at once, with the
   * escalation's people asked too when nobody decided in time, or, with
   * `allowPending`, read once each. Once the decision is reached, the
   * questions still open are withdrawn.
   */
  async #readPeople(
    action: ApprovalAction,
    item: TicketItem,
    question: TicketQuestion,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<ApprovalDecision> {
    if (context.allowPending === true) {
      return this.#readPeopleOnce(action, item, question, context, logger);
    }
    const { sent, required, toCome } = peopleAsked(question);
    const { digest, escalation } = question;
    const answers: PersonAnswer[] = [];
    const waits: Array<Promise<void>> = [];
    let escalated = false;
    const combined = () => combineApprovals(action, answers, required, escalated ? 0 : toCome);
    // Every wait runs at once; once the answers decide, the others stop and are withdrawn.
    const stop = new AbortController();
    const onAbort = () => stop.abort(context.signal.reason);
    context.signal.addEventListener("abort", onAbort, { once: true });
    const startedAt = Date.now();
    const left = () => this.#options.timeoutMs - (Date.now() - startedAt);
    const watch = (one: SentQuestion) => {
      const answer: PersonAnswer = { sent: one, decision: undefined };
      answers.push(answer);
      const waitMs = left();
      waits.push(
        (async () => {
          try {
            answer.decision = await this.#waitAnswer(
              action,
              item,
              one,
              waitMs,
              { ...context, signal: stop.signal },
              logger,
              digest,
            );
          } catch (error) {
            if (context.signal.aborted || !(error instanceof AbortedError)) throw error;
            // Withdrawn because the others' answers decided.
            return;
          }
          if (combined().outcome !== "pending") stop.abort();
        })(),
      );
    };
    try {
      sent.forEach(watch);
      if (escalation !== undefined && toCome > 0) {
        waits.push(
          (async () => {
            const dueInMs = escalationDue(escalation) - Date.now();
            if (dueInMs >= left()) return;
            try {
              await sleep(Math.max(0, dueInMs), undefined, { signal: stop.signal });
            } catch {
              return;
            }
            const more = await this.#escalateToPeople(action, question, context, logger);
            escalated = true;
            if (stop.signal.aborted) {
              for (const one of more)
                await cancelQuestion(this.#options.client, one.messageId, logger);
              return;
            }
            more.forEach(watch);
            if (more.length === 0 && combined().outcome !== "pending") stop.abort();
          })(),
        );
      }
      // Waits are added while others run (the escalation's): wait until none is left.
      for (let done = 0; done < waits.length; ) {
        const batch = waits.slice(done);
        done = waits.length;
        await Promise.all(batch);
      }
      // Nobody is left to ask: what the answers decide, expired or too few when they decide nothing.
      return combineApprovals(action, answers, required);
    } finally {
      stop.abort();
      context.signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * The people's answers read once each (a run that may wait): pending
   * while the service cannot be read or too few have answered yet. Once
   * the escalation is due, its people are asked (again, to the same
   * questions, when an earlier resume asked them) and read too. Once the
   * answers decide, the questions still open are withdrawn.
   */
  async #readPeopleOnce(
    action: ApprovalAction,
    item: TicketItem,
    question: TicketQuestion,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<ApprovalDecision> {
    const { sent, required, toCome } = peopleAsked(question);
    const { digest, escalation } = question;
    const readAll = async (questions: readonly SentQuestion[]) => {
      const interactions = await Promise.all(
        questions.map((one) => this.#readOnce(one, action.toolName, context, logger)),
      );
      if (interactions.includes(undefined)) return undefined;
      return Promise.all(
        questions.map(async (one, index) => ({
          sent: one,
          decision: await this.#conclude(action, item, interactions[index]!, one, logger, {
            digest,
          }),
        })),
      );
    };
    const pending = (questions: readonly SentQuestion[]): ApprovalDecision => ({
      outcome: "pending",
      interactionId: questions.map((one) => one.interactionId).join(", "),
    });
    const answers = await readAll(sent);
    if (answers === undefined) return pending(sent);
    let decision = combineApprovals(action, answers, required, toCome);
    if (decision.outcome === "pending" && escalation !== undefined && toCome > 0) {
      if (escalationDue(escalation) > Date.now()) return decision;
      const more = await this.#escalateToPeople(action, question, context, logger);
      const read = await readAll(more);
      if (read === undefined) return pending([...sent, ...more]);
      answers.push(...read);
      decision = combineApprovals(action, answers, required);
    }
    if (decision.outcome !== "pending") {
      // The answers decided: nobody else need answer.
      for (const answer of answers) {
        if (answer.decision?.outcome === "pending") {
          await cancelQuestion(this.#options.client, answer.sent.messageId, logger);
        }
      }
    }
    return decision;
  }

  /** The answer to one question of several, waited for up to `timeoutMs`. */
  async #waitAnswer(
    action: ApprovalAction,
    item: TicketItem,
    sent: SentQuestion,
    timeoutMs: number,
    context: ApprovalContext,
    logger: Logger,
    digest: string | undefined,
  ): Promise<ApprovalDecision> {
    const outcome = await this.#waitFor(sent, `"${action.toolName}"`, timeoutMs, context, logger);
    if ("outcome" in outcome) return outcome;
    if (outcome.status === "timeout" || outcome.status === "error") {
      const [decision] = await this.#unanswered(outcome, sent, [action], logger);
      return decision as ApprovalDecision;
    }
    return this.#conclude(action, item, outcome.interaction, sent, logger, { digest });
  }

  /**
   * Binds `sent`'s interaction to `question` in the agent's run store:
   * `bound`; `taken` when it holds another question there (or the store
   * answers anything else); `unbound` when there is no store to bind in
   * (asked outside an agent's run); `failed` when the store could not say
   * (logged).
   */
  async #bind(
    sent: SentQuestion,
    question: string,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<"bound" | "taken" | "unbound" | "failed"> {
    const { link, interactionId } = sent;
    if (context.bindInteraction === undefined) return "unbound";
    try {
      const bound = await context.bindInteraction({ approverLink: link, interactionId, question });
      if (bound?.outcome === "bound") return "bound";
      logger.warn(
        { interactionId, link, heldByRun: bound?.runId },
        "the messaging service gave this question an interaction that holds another question; its answer is not read as this one's",
      );
      return "taken";
    } catch (error) {
      logger.warn(
        { interactionId, link, error: describeMessagingError(error) },
        "which question the interaction holds could not be recorded in the run store",
      );
      return "failed";
    }
  }

  /**
   * Binds each interaction of `question` that the ticket does not say was
   * bound when it was asked (by an earlier version, or when the run store
   * could not be written then), before its answer is read: refusals for
   * `asked` when one holds another question; while the store cannot say,
   * pending for a run that may wait, refusals otherwise.
   */
  async #bindOnRead(
    question: TicketQuestion,
    sent: readonly SentQuestion[],
    asked: readonly AskedItem[],
    context: ApprovalContext,
    logger: Logger,
  ): Promise<ApprovalDecision[] | undefined> {
    const subject = subjectOf(asked);
    for (const one of sent) {
      if (one.bound === true) continue;
      const bound = await this.#bind(one, questionName(question.items), context, logger);
      const interaction = escapeUntrustedText(one.interactionId).slice(0, 100);
      if (bound === "taken") {
        const reason = `The messaging service's interaction "${interaction}" of link "${one.link}" holds another question than the one asked about ${subject}: its answer is that question's, so it approves nothing here and the action was not run.`;
        return asked.map(() => refusal("messaging_error", reason, one.interactionId));
      }
      if (bound === "failed" && context.allowPending === true) {
        return asked.map(() => ({ outcome: "pending", interactionId: one.interactionId }));
      }
      if (bound === "failed") {
        const reason = `Which question the messaging service's interaction "${interaction}" holds could not be checked in the run store, so its answer about ${subject} was not read and the action was not run.`;
        return asked.map(() => refusal("messaging_error", reason, one.interactionId));
      }
    }
    return undefined;
  }

  /**
   * One read of a question's interaction (a run that may wait); `undefined`
   * when the service cannot be reached: the approval stays pending, and the
   * run is checked again later, rather than refuse an action the person may
   * have approved.
   */
  async #readOnce(
    sent: SentQuestion,
    subject: string,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<Interaction | undefined> {
    try {
      return await this.#options.client.getInteraction(sent.interactionId, {
        signal: context.signal,
      });
    } catch (error) {
      throwIfAborted(context.signal, subject, error);
      logger.warn(
        { interactionId: sent.interactionId, error: describeMessagingError(error) },
        "the answer could not be read; the approval stays pending",
      );
      return undefined;
    }
  }

  /**
   * Sends the question about one action (its `text`) to `subscriptionLinkId`; with
   * edits allowed it carries the arguments to change and their schema, and
   * with a standing approval offered, the scope's fingerprint.
   */
  async #send(
    action: ApprovalAction,
    text: string,
    context: ApprovalContext,
    logger: Logger,
    subscriptionLinkId: string = this.#options.subscriptionLinkId,
    whoIsAsked?: string,
  ): Promise<SentQuestion | RefusedDecision> {
    const edits = this.#editsAllowed(action);
    const metadata = redactValue({
      fingerprint: action.fingerprint,
      tool: action.toolName,
      tool_call_id: action.toolCallId,
      ...(context.runId !== undefined ? { run_id: context.runId } : {}),
      ...(context.task !== undefined ? { task: context.task } : {}),
      // Who is asked and how many must approve, as the question says, for a channel that shows it apart.
      ...(whoIsAsked !== undefined ? { [whoIsAskedKey]: whoIsAsked } : {}),
      // The standing scope offered, so the answer is read against the scope the question stated.
      ...(this.#offersStanding(action) ? { [standingOptionId]: action.standing?.fingerprint } : {}),
      // For a service that echoes the metadata: the read checks the question is this one.
      [questionDigestKey]: textDigest(text),
    }) as Record<string, unknown>;
    // A channel that can shows the arguments ready to change ("Approve with changes"), as the
    // question shows them: the view's placeholders, no value changed by a pattern.
    if (edits) metadata[editAnswer.metadataKey] = viewOfAction(action).values.arguments;
    // What a change must meet, so the channel can check it where the person types it: the
    // tool's own schema, whose property names (a `token` argument) are not secrets.
    if (edits && action.parameters !== undefined) {
      metadata[editAnswer.schemaMetadataKey] = action.parameters;
    }
    let accepted: AcceptedMessage;
    try {
      accepted = await this.#options.client.sendMessage(
        {
          subscriptionLinkId,
          kind: "interaction",
          text,
          options: [
            ...approvalOptions,
            ...(edits ? [editOption] : []),
            ...(this.#offersStanding(action) && action.standing
              ? [standingOption(action.standing)]
              : []),
          ],
          ...this.#expiresIn(context),
          metadata,
        },
        {
          signal: context.signal,
          idempotencyKey: questionIdempotencyKey([action.approvalId], subscriptionLinkId),
        },
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
    const sent = await this.#taken(accepted, `"${action.toolName}"`, "the action was", logger, {
      link: subscriptionLinkId,
      question: questionName([action]),
      context,
    });
    if ("outcome" in sent) return sent;
    logger.debug(
      {
        fingerprint: action.fingerprint,
        messageId: sent.messageId,
        interactionId: sent.interactionId,
      },
      "approval question sent",
    );
    return { ...sent, link: subscriptionLinkId };
  }

  /**
   * The message the service accepted, as a question whose answer can be
   * read: refused (and withdrawn) when it has no interaction id, or one an
   * earlier question of this approver was given, whose answer it would read;
   * refused (and left alone: it is another question's) when the run store
   * binds its interaction to another question. Bound to `binding.question`
   * when the agent gives a run store; a bind that fails is left to the read.
   */
  async #taken(
    accepted: AcceptedMessage,
    subject: string,
    notRun: string,
    logger: Logger,
    binding: { link: string; question: string; context: ApprovalContext },
  ): Promise<Omit<SentQuestion, "link"> | RefusedDecision> {
    const { messageId, interactionId } = accepted;
    const why =
      interactionId === undefined
        ? "gave no interaction id to read the answer from"
        : this.#interactionIds.has(interactionId)
          ? `named its interaction "${escapeUntrustedText(interactionId).slice(0, 100)}", which an earlier question was given, so its answer could be read as another question's`
          : undefined;
    if (why === undefined && interactionId !== undefined) {
      this.#interactionIds.add(interactionId);
      const sent = { messageId, interactionId, link: binding.link };
      const bound = await this.#bind(sent, binding.question, binding.context, logger);
      if (bound === "taken") {
        return refusal(
          "messaging_error",
          `The messaging service accepted the approval request for ${subject} (message "${escapeUntrustedText(messageId).slice(0, 100)}") under interaction "${escapeUntrustedText(interactionId).slice(0, 100)}" of link "${binding.link}", which already holds another question: an answer to it is that question's, so ${notRun} not run.`,
        );
      }
      return { messageId, interactionId, ...(bound === "bound" ? { bound: true as const } : {}) };
    }
    await cancelQuestion(this.#options.client, messageId, logger);
    return refusal(
      "messaging_error",
      `The messaging service accepted the approval request for ${subject} (message "${messageId}") but ${why}; ${notRun} not run.`,
    );
  }

  /**
   * Waits for the answer to one question about one action: in stretches up
   * to the reminder, up to the escalation (a new question to the escalation
   * link, the first withdrawn), up to the end. (A question put to
   * several people is waited for by `#readPeople`, neither moved nor
   * reminded of.)
   */
  async #wait(
    action: ApprovalAction,
    item: TicketItem,
    first: SentQuestion,
    context: ApprovalContext,
    logger: Logger,
    { digest }: { digest?: string | undefined } = {},
  ): Promise<ApprovalDecision> {
    const { timeoutMs } = this.#options;
    const tool = `"${action.toolName}"`;
    let asked = first;
    let waited = 0;
    for (const checkpoint of [...this.#checkpoints(), { atMs: timeoutMs, kind: "end" as const }]) {
      const outcome = await this.#waitFor(asked, tool, checkpoint.atMs - waited, context, logger);
      if ("outcome" in outcome) return outcome;
      waited = checkpoint.atMs;
      if (outcome.status === "timeout" && checkpoint.kind === "remind") {
        await this.#remind(action, asked, timeoutMs - waited, logger);
        continue;
      }
      if (outcome.status === "timeout" && checkpoint.kind === "escalate") {
        const moved = await this.#escalate(action, asked, context, logger);
        if ("outcome" in moved) return moved;
        asked = moved;
        continue;
      }
      if (outcome.status === "timeout" || outcome.status === "error") {
        const [decision] = await this.#unanswered(outcome, asked, [action], logger);
        return decision as ApprovalDecision;
      }
      return this.#conclude(action, item, outcome.interaction, asked, logger, { digest });
    }
    throw new Error("unreachable: the last stretch always decides");
  }

  /** Waits up to `timeoutMs` for `sent`'s answer; an abort withdraws the question and throws `AbortedError`. */
  async #waitFor(
    sent: SentQuestion,
    subject: string,
    timeoutMs: number,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<InteractionOutcome | RefusedDecision> {
    const { client, pollIntervalMs, maxPollIntervalMs } = this.#options;
    try {
      return await client.waitForInteraction(sent.interactionId, {
        timeoutMs: Math.max(1, timeoutMs),
        signal: context.signal,
        ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
        ...(maxPollIntervalMs !== undefined ? { maxPollIntervalMs } : {}),
      });
    } catch (error) {
      if (error instanceof AbortedError || context.signal.aborted) {
        await cancelQuestion(client, sent.messageId, logger);
        throw new AbortedError(
          `Waiting for approval of ${subject} was aborted; the question was withdrawn`,
          { cause: error },
        );
      }
      return refusal(
        "messaging_error",
        `Waiting for the answer about ${subject} failed (${describeMessagingError(error)}), so the action was not run.`,
        sent.interactionId,
      );
    }
  }

  /**
   * A wait that ended without an answer: an undeliverable question is
   * refused as such; one nobody answered in time is withdrawn and expired
   * (never a denial); a failing service refuses.
   */
  async #unanswered(
    outcome: Extract<InteractionOutcome, { status: "timeout" | "error" }>,
    sent: SentQuestion,
    actions: readonly ApprovalAction[],
    logger: Logger,
  ): Promise<ApprovalDecision[]> {
    const { client, timeoutMs } = this.#options;
    const { interactionId, messageId } = sent;
    const failure =
      outcome.status === "timeout"
        ? await readDeliveryFailure(client, messageId, logger)
        : undefined;
    if (failure) {
      return actions.map((action) =>
        refusal(
          "delivery_failed",
          deliveryFailedReason(action.toolName, failure.error),
          interactionId,
        ),
      );
    }
    await cancelQuestion(client, messageId, logger);
    const subject = subjectOf(actions.map((action) => ({ action })));
    if (outcome.status === "error") {
      const reason = `The messaging service failed while waiting for the answer about ${subject} (${describeMessagingError(outcome.error)}), so the action was not run.`;
      return actions.map(() => refusal("messaging_error", reason, interactionId));
    }
    const reason = `No answer to the approval request for ${subject} came within ${formatDuration(timeoutMs)}; the request was withdrawn and the action was not run.`;
    return actions.map(() => ({ outcome: "expired", reason, interactionId }));
  }

  /** Whether questions about `action` offer a standing approval: the rule asking offered one. */
  #offersStanding(action: ApprovalAction): boolean {
    return action.standing !== undefined;
  }

  /** Whether questions about `action` offer an edit: the rule asking allows one, for one approver. */
  #editsAllowed(action: ApprovalAction): boolean {
    return action.editable === true && requiredOf(action) < 2;
  }

  /**
   * The question as sent; with edits allowed, it shows the arguments to
   * change and how; with a standing approval offered, it states its scope.
   */
  #questionText(action: ApprovalAction, whoIsAsked?: string): string {
    const standing = viewOfAction(action).standing;
    const tail = [
      ...(this.#offersStanding(action) && standing ? [describeStandingScope(standing)] : []),
      ...(this.#editsAllowed(action)
        ? [
            `Or choose "${editOption.label}" and reply with the whole arguments as JSON; they are shown above.`,
          ]
        : []),
    ];
    // The question is cut to leave room for what follows it, so the whole fits one message.
    const room = maximumMessageTextLength - tail.reduce((sum, line) => sum + line.length + 1, 0);
    return [buildApprovalMessageText(action, { maxLength: room, whoIsAsked }), ...tail].join("\n");
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
    asked: SentQuestion,
    leftMs: number,
    logger: Logger,
  ): Promise<void> {
    try {
      await this.#options.client.sendMessage({
        subscriptionLinkId: asked.link,
        kind: "notification",
        text: `Reminder: the approval question about ${viewOfAction(action).tool} is still waiting for your answer. It expires in ${formatDuration(leftMs)}; if nobody answers, the action is not run.`,
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
    asked: SentQuestion,
    context: ApprovalContext,
    logger: Logger,
  ): Promise<SentQuestion | RefusedDecision> {
    const escalation = this.#options.escalation!;
    await cancelQuestion(this.#options.client, asked.messageId, logger);
    logger.info(
      { interactionId: asked.interactionId, to: escalation.subscriptionLinkId },
      "no answer from the first approver; asking the escalation link",
    );
    return this.#send(
      action,
      this.#questionText(action),
      context,
      logger,
      escalation.subscriptionLinkId,
    );
  }

  /**
   * The decision an interaction gives for `action`; for an item of a
   * question about several (`numbers`: every number it showed), the
   * decision for that item. `digest`: the question's, as the ticket
   * recorded it, for a service that echoes the question.
   */
  async #conclude(
    action: ApprovalAction,
    item: TicketItem,
    interaction: Interaction,
    sent: SentQuestion,
    logger: Logger,
    {
      numbers,
      digest,
    }: { numbers?: readonly number[] | undefined; digest?: string | undefined } = {},
  ): Promise<ApprovalDecision> {
    const { interactionId } = sent;
    const expected = {
      interactionId,
      messageId: sent.messageId,
      fingerprint: action.fingerprint,
      recordedFingerprint: item.fingerprint,
      questionDigest: digest,
      toolName: action.toolName,
      editsAllowed: this.#editsAllowed(action),
      standingFingerprint: this.#offersStanding(action) ? action.standing?.fingerprint : undefined,
    };
    const verdict =
      numbers !== undefined && item.number !== undefined
        ? judgeBatchItem(interaction, { ...expected, number: item.number, offered: numbers })
        : judgeInteraction(interaction, expected);
    // The person who answered is the one behind the subscription link asked.
    const answered = {
      interactionId,
      approverLink: sent.link,
      approvedBy: `subscription link ${sent.link}`,
    };
    switch (verdict.outcome) {
      case "approved":
        return {
          outcome: "approved",
          fingerprint: action.fingerprint,
          ...answered,
          ...(verdict.note !== undefined ? { note: verdict.note } : {}),
          ...(verdict.standing === true && action.standing
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
          ...answered,
          editedArguments: verdict.arguments,
        };
      }
      case "pending":
        return { outcome: "pending", interactionId };
      case "failed": {
        const failure = await readDeliveryFailure(this.#options.client, sent.messageId, logger);
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

  /**
   * The decision with where it came from, for the agent's audit record:
   * the link the question went to and the digest of its text, once a
   * question went out.
   */
  #withSource(question: TicketQuestion, given: ApprovalDecision): ApprovalDecision {
    if (given.outcome === "pending" || given.interactionId === undefined) return given;
    const links = question.sent?.map((sent) => sent.link) ?? [];
    return {
      ...given,
      approverLink: given.approverLink ?? (links.join(" and ") || this.#options.subscriptionLinkId),
      ...(question.digest !== undefined ? { questionDigest: question.digest } : {}),
    };
  }

  /** How long the question stays open: a suspended run's person may answer hours later. */
  #expiresIn(context: ApprovalContext): { expiresInSeconds?: number } {
    const seconds =
      context.allowPending === true
        ? this.#options.pendingExpiresInSeconds
        : this.#options.messageExpiresInSeconds;
    return seconds !== undefined ? { expiresInSeconds: seconds } : {};
  }

  #loggerFor(context: ApprovalContext): Logger {
    return componentLogger(this.#options.logger ?? context?.logger, "messaging-approver");
  }
}

/** How many distinct people must approve `action`: its rule's, as the gate gave it. */
function requiredOf(action: ApprovalAction): number {
  return Math.max(action.requiredApprovers ?? 1, action.whoMayApprove?.required ?? 1);
}

/**
 * A question's questions out, how many people must approve, and how many
 * its escalation may still ask (those not asked already).
 */
function peopleAsked(question: TicketQuestion): {
  sent: SentQuestion[];
  required: number;
  toCome: number;
} {
  const sent = question.sent ?? [];
  const asked = new Set(sent.map((one) => one.person));
  const toCome =
    question.escalation?.people.filter((person) => !asked.has(person.person)).length ?? 0;
  return { sent, required: question.required ?? sent.length, toCome };
}

/** When, in milliseconds, an escalation asks its people. */
function escalationDue(escalation: TicketEscalation): number {
  return Date.parse(escalation.askedAt) + escalation.afterMs;
}

/** An action as a ticket records it: its approval id, its fingerprint and its number in the question. */
function itemOf(action: ApprovalAction, number?: number): TicketItem {
  return {
    approvalId: action.approvalId,
    fingerprint: action.fingerprint,
    ...(number !== undefined ? { number } : {}),
  };
}

/** The actions of a question in words, e.g. `3 actions (delete_callbacks, send_message)`. */
function subjectOf(asked: ReadonlyArray<{ action: ApprovalAction }>): string {
  if (asked.length === 1) return `"${asked[0]!.action.toolName}"`;
  const tools = [...new Set(asked.map(({ action }) => action.toolName))];
  return `${asked.length} actions (${tools.join(", ")})`;
}

/** An interaction's `expires_at` in milliseconds, when the service sent a readable one. */
function expiresAtOf(interaction: Interaction): number | undefined {
  const time =
    typeof interaction.expires_at === "string" ? Date.parse(interaction.expires_at) : Number.NaN;
  return Number.isNaN(time) ? undefined : time;
}

/**
 * Whether the question about `action` goes to the people its
 * `whoMayApprove` lists: when the directory lists them and gives any of
 * them (or of the escalation's people) a messaging link.
 */
function asksPeopleOnMessaging(action: ApprovalAction): boolean {
  const who = action.whoMayApprove;
  if (who?.people === undefined) return false;
  return [...who.people, ...(who.escalation?.people ?? [])].some(
    (person) => (person.identities.messaging?.length ?? 0) > 0,
  );
}
