import { timingSafeEqual } from "node:crypto";
import {
  type BatchItem,
  batchAnswer,
  formatItemSelection,
  parseItemSelection,
  readBatchItems,
} from "../../clients/messaging/batch-answer.js";
import { editAnswer } from "../../clients/messaging/messaging-requests.js";
import type { Route, RouteContext } from "../http/route.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";
import { toRfc3339 } from "../http/timestamps.js";
import { checkEditedArguments } from "./check-edited-arguments.js";
import { findLink } from "./link-routes.js";
import type { MessagingService } from "./messaging-service.js";
import type { InteractionRecord, SubscriptionLink } from "./messaging-state.js";
import {
  editArgumentsField,
  isPastExpiry,
  itemField,
  maximumNoteLength,
  renderConsentPage,
  renderInboxPage,
  renderQuestionPage,
} from "./render-approval-pages.js";
import { freeTextOptionId } from "./terminal-answerer.js";

/**
 * The pages a person uses, in a browser, without a bearer token: the consent
 * page of a subscription link (`GET /subscribe/{id}`; pressing Accept posts
 * to it and activates a pending link), the link's inbox (`GET /inbox/{id}`,
 * which reloads itself) and each question's own page
 * (`GET /inbox/{id}/interactions/{interaction_id}`, with a note, the edit
 * and the choice of actions). Pressing an option posts the answer to the
 * question's address; "Approve with changes" posts
 * the changed arguments as the answer's text). Forms work without
 * JavaScript: each post answers with a redirect back to the page, or, when
 * the answer cannot be sent as typed (changed arguments that are not JSON
 * or do not fit the tool's parameters, no action checked, a note too
 * long), with the page again, showing what the person typed and what to
 * correct; nothing is answered then. A post
 * must come from the simulator's own origin (its `Origin` header, and
 * `Sec-Fetch-Site: same-origin` when sent) and carry the page's form token,
 * so neither another site nor a program posting without a browser's headers
 * answers for the person. Errors are plain text, for the person reading them.
 */
export function approvalPageRoutes(service: MessagingService): Route[] {
  const context = () => ({ formToken: service.formToken, now: service.now() });
  return [
    {
      method: "GET",
      pattern: "/subscribe/:linkId",
      public: true,
      errorFormat: "text",
      handle: ({ params }) => {
        const link = findLink(service, params.linkId);
        return {
          status: link.state === "pending" || link.state === "active" ? 200 : 410,
          html: renderConsentPage(link, context()),
        };
      },
    },
    {
      method: "POST",
      pattern: "/subscribe/:linkId",
      public: true,
      errorFormat: "text",
      handle: (request) => {
        checkFormPost(service, request);
        const link = findLink(service, request.params.linkId);
        if (link.state === "pending") {
          link.state = "active";
          link.activated_at = toRfc3339(service.now());
        }
        return seeOther(`/subscribe/${encodeURIComponent(link.subscription_link_id)}`);
      },
    },
    {
      method: "GET",
      pattern: "/inbox/:linkId",
      public: true,
      errorFormat: "text",
      handle: ({ params }) => {
        const link = findLink(service, params.linkId);
        return { html: renderInboxPage(link, inboxOf(service, link), context()) };
      },
    },
    {
      method: "GET",
      pattern: "/inbox/:linkId/interactions/:interactionId",
      public: true,
      errorFormat: "text",
      handle: ({ params }) => {
        const link = findLink(service, params.linkId);
        const interaction = findInteraction(service, link, params.interactionId);
        return { html: renderQuestionPage(link, interaction, context()) };
      },
    },
    {
      method: "POST",
      pattern: "/inbox/:linkId/interactions/:interactionId",
      public: true,
      errorFormat: "text",
      handle: (request) => {
        const form = checkFormPost(service, request);
        const link = findLink(service, request.params.linkId);
        const interaction = findInteraction(service, link, request.params.interactionId);
        const optionId = form.get("option_id") ?? "";
        const offered =
          interaction.options.length === 0
            ? optionId === freeTextOptionId
            : interaction.options.some((option) => option.id === optionId);
        if (!offered) {
          throw new SimulatorHttpError(
            400,
            "invalid_answer",
            `"${optionId}" is not one of this question's options.`,
          );
        }
        const items = readBatchItems(interaction.metadata);
        const read =
          optionId === editAnswer.optionId
            ? readEditedArguments(form.get(editArgumentsField) ?? "", interaction.metadata)
            : optionId === batchAnswer.approveSome.id && items
              ? readItemChoice(form, items)
              : readNote(form.get("note") ?? "", interaction.options.length === 0);
        if (!read.ok) {
          // The person's answer cannot be sent: the page again, with what they typed and why.
          return {
            status: 400,
            html: renderQuestionPage(link, interaction, context(), {
              interactionId: interaction.interaction_id,
              optionId,
              problem: read.problem,
              typed: {
                note: form.get("note") ?? "",
                edit: form.get(editArgumentsField) ?? "",
                items: form.getAll(itemField),
              },
            }),
          };
        }
        const note = read.text;
        // A question whose time is up expires now rather than take a late answer.
        const message = service.state.messages.find(
          (candidate) => candidate.message_id === interaction.message_id,
        );
        if (message && isPastExpiry(interaction, service.now())) service.lifecycle.expire(message);
        // An answer to a question no longer pending changes nothing: the page shows its outcome.
        service.lifecycle.answer(interaction, optionId, note === "" ? undefined : note);
        return seeOther(
          `/inbox/${encodeURIComponent(link.subscription_link_id)}#interaction-${encodeURIComponent(interaction.interaction_id)}`,
        );
      },
    },
  ];
}

/** The interactions sent to a link, oldest first. */
function inboxOf(service: MessagingService, link: SubscriptionLink): InteractionRecord[] {
  return service.state.interactions.filter(
    (interaction) => interaction.subscription_link_id === link.subscription_link_id,
  );
}

/** The interaction of this id sent to `link`; a 404 for any other. */
function findInteraction(
  service: MessagingService,
  link: SubscriptionLink,
  interactionId: string | undefined,
): InteractionRecord {
  const interaction = service.state.interactions.find(
    (candidate) =>
      candidate.interaction_id === interactionId &&
      candidate.subscription_link_id === link.subscription_link_id,
  );
  if (!interaction) {
    throw new SimulatorHttpError(
      404,
      "interaction_not_found",
      `Interaction ${interactionId ?? ""} is not in this inbox.`,
    );
  }
  return interaction;
}

/** The answer's text read from the form, or what the person must correct first. */
type ReadAnswer = { ok: true; text: string } | { ok: false; problem: string };

/**
 * "Approve only some": the numbers of the actions checked (or, from a form
 * without checkboxes, typed as `1,3`), each one the question shows, and the
 * note after them. Nothing checked is sent back to the person: to run none,
 * they press "Deny all".
 */
function readItemChoice(form: URLSearchParams, items: readonly BatchItem[]): ReadAnswer {
  const offered = items.map((item) => item.number);
  const checked = form.getAll(itemField);
  const note = readNote(form.get("note") ?? "", false);
  if (!note.ok) return note;
  const selection =
    checked.length > 0
      ? parseItemSelection(checked.join(","), offered)
      : parseItemSelection(note.text, offered);
  if (!selection.ok) {
    return {
      ok: false,
      problem:
        checked.length === 0
          ? "no action is checked: check the actions to approve, or press Deny all to approve none"
          : `the actions checked cannot be read: ${selection.problem}`,
    };
  }
  return {
    ok: true,
    text:
      checked.length > 0
        ? formatItemSelection(selection.numbers, note.text)
        : formatItemSelection(selection.numbers, selection.note),
  };
}

/** The note written with an answer; for a question without options, the answer itself. */
function readNote(text: string, isTheAnswer: boolean): ReadAnswer {
  const note = text.trim();
  if (isTheAnswer && note === "") return { ok: false, problem: "the answer is empty" };
  if (note.length > maximumNoteLength) {
    return {
      ok: false,
      problem: `the note is ${note.length} characters long, more than the ${maximumNoteLength} a note may have`,
    };
  }
  return { ok: true, text: note };
}

/**
 * The changed arguments of "Approve with changes", checked as the terminal
 * checks them ({@link checkEditedArguments}): a change that cannot run is
 * the person's to correct, not an answer.
 */
function readEditedArguments(text: string, metadata: Record<string, unknown>): ReadAnswer {
  const checked = checkEditedArguments(text, metadata);
  return checked.ok ? checked : { ok: false, problem: checked.problem };
}

/**
 * The form's fields, once the post is known to come from the simulator's own
 * page in a browser: browsers send `Origin` with every form post (and
 * `Sec-Fetch-Site`), so a post without this origin, or one a browser marks
 * as coming from elsewhere, is refused before its token is even read.
 */
function checkFormPost(service: MessagingService, request: RouteContext): URLSearchParams {
  const origin = request.headers.origin;
  if (origin === undefined) {
    throw new SimulatorHttpError(
      403,
      "missing_origin",
      `This form post carries no Origin header, so it does not come from a browser on this page; answer on the page at ${service.origin}.`,
    );
  }
  if (origin !== service.origin) {
    throw new SimulatorHttpError(
      403,
      "cross_site_post",
      `A form from ${origin} cannot post to this page; use the page at ${service.origin}.`,
    );
  }
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin") {
    throw new SimulatorHttpError(
      403,
      "cross_site_post",
      `The browser marks this form post as ${JSON.stringify(site)}, not same-origin; use the page at ${service.origin}.`,
    );
  }
  const token = request.form?.get("token");
  if (token === undefined || token === null || !sameText(token, service.formToken)) {
    throw new SimulatorHttpError(
      403,
      "invalid_form_token",
      "This form is not from this page (its token is missing or stale); reload the page and try again.",
    );
  }
  return request.form!;
}

function sameText(given: string, expected: string): boolean {
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}

function seeOther(location: string) {
  return { status: 303, headers: { location } };
}
