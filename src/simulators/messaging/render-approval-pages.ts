import {
  type BatchItem,
  batchAnswer,
  readBatchItems,
} from "../../clients/messaging/batch-answer.js";
import { editAnswer } from "../../clients/messaging/messaging-requests.js";
import {
  editableJson,
  escapeHtml,
  escapeUntrustedLines,
  escapeUntrustedText,
} from "../../internal/untrusted-text.js";
import { maximumEditLength } from "./check-edited-arguments.js";
import type { InteractionRecord, MessageOption, SubscriptionLink } from "./messaging-state.js";
import { readQuestionAsker } from "./question-asker.js";
import { freeTextOptionId } from "./terminal-answerer.js";

/** The longest note a person may write with an answer on the inbox page. */
export const maximumNoteLength = 2000;

/** The field of the per-action choice: one per checked action, holding its number. */
export const itemField = "item";

/** The field of the edit form that holds the changed arguments. */
export const editArgumentsField = "arguments";

/**
 * An answer the page could not send as the person typed it: the question,
 * the option they chose, why it was not sent, and what they typed, shown
 * again for them to correct.
 */
export interface AnswerToCorrect {
  interactionId: string;
  optionId: string;
  problem: string;
  typed: { note: string; edit: string; items: readonly string[] };
}

/** What every page needs: the form token that proves a post came from the page, and the time. */
export interface PageContext {
  formToken: string;
  /** The simulator's clock, against which a question's expiry is shown. */
  now: Date;
}

/**
 * The consent page of a subscription link: who it is for and its state;
 * an Accept button while it is pending, the way to the inbox once active.
 */
export function renderConsentPage(link: SubscriptionLink, context: PageContext): string {
  const label = link.label === undefined ? "" : ` (${escapeUntrustedText(link.label)})`;
  const id = escapeHtml(link.subscription_link_id);
  const inbox = `/inbox/${encodeURIComponent(link.subscription_link_id)}`;
  let body: string;
  if (link.state === "pending") {
    body = `<p>Accept to receive notifications and approval questions on this link${escapeHtml(label)}. Questions then appear in your inbox, where you answer them.</p>
<form method="post" action="/subscribe/${encodeURIComponent(link.subscription_link_id)}">
${tokenField(context)}<button type="submit" name="consent" value="accept">Accept</button>
</form>`;
  } else if (link.state === "active") {
    body = `<p class="outcome">You are subscribed${escapeHtml(label)}.</p>
<p><a href="${inbox}">Open your inbox</a> to answer approval questions.</p>`;
  } else {
    body = `<p class="outcome">This subscription link is ${escapeHtml(link.state)}; ask for a new one.</p>`;
  }
  return page(
    `Subscription ${id}`,
    `<h1>Subscription</h1>\n<p class="muted">Link ${id}</p>\n${body}`,
  );
}

/**
 * The inbox of a subscription link: its interactions, newest first, each with
 * which run, tool and task asks, its text (escaped as untrusted text, then
 * as HTML), when it expires (or that it has), and, while it is pending, its
 * plain options as buttons and a link to its own page (where a note, a
 * change to the action or a choice of actions is written); once it has an
 * outcome, that. The inbox holds no field to type into, so it reloads
 * itself every few seconds (no script: `<meta http-equiv="refresh">`):
 * a new question shows up, and one answered elsewhere, withdrawn or expired
 * shows its outcome.
 */
export function renderInboxPage(
  link: SubscriptionLink,
  interactions: readonly InteractionRecord[],
  context: PageContext,
): string {
  const label = link.label === undefined ? "" : ` (${escapeUntrustedText(link.label)})`;
  const newestFirst = [...interactions].reverse();
  const waiting = newestFirst.some((interaction) => interaction.state === "pending");
  const items =
    newestFirst.length === 0
      ? `<p class="muted">No questions yet. This page looks again every few seconds.</p>`
      : newestFirst
          .map((interaction) => renderInteraction(link, interaction, context, { full: false }))
          .join("\n");
  const notice =
    link.state === "active"
      ? ""
      : `<p class="outcome">This link is ${escapeHtml(link.state)}: nothing new reaches it.</p>\n`;
  return page(
    "Approval inbox",
    `<h1>Approval inbox</h1>\n<p class="muted">Link ${escapeHtml(link.subscription_link_id)}${escapeHtml(label)}</p>\n${notice}${items}`,
    waiting ? 5 : 3,
  );
}

/**
 * One question's own page, where it is answered in full: its options, a
 * note, "Approve with changes" with the arguments it asks about
 * (`metadata.arguments`) as JSON to change, and, for a question about
 * several numbered actions, a checkbox per action. It never reloads itself
 * (a person may be typing). With `correct`, the answer the person sent and
 * why it was not sent, in the form they sent it with.
 */
export function renderQuestionPage(
  link: SubscriptionLink,
  interaction: InteractionRecord,
  context: PageContext,
  correct?: AnswerToCorrect,
): string {
  const inbox = `/inbox/${encodeURIComponent(link.subscription_link_id)}`;
  return page(
    "Approval question",
    `<h1>Approval question</h1>\n<p class="muted"><a href="${inbox}">Back to the inbox</a></p>\n${renderInteraction(link, interaction, context, { full: true, correct })}`,
  );
}

/** The address of a question's own page (its form posts there too). */
function questionPath(link: SubscriptionLink, interaction: InteractionRecord): string {
  return `/inbox/${encodeURIComponent(link.subscription_link_id)}/interactions/${encodeURIComponent(interaction.interaction_id)}`;
}

function renderInteraction(
  link: SubscriptionLink,
  interaction: InteractionRecord,
  context: PageContext,
  shown: { full: boolean; correct?: AnswerToCorrect | undefined },
): string {
  const id = escapeHtml(interaction.interaction_id);
  const head = `<article id="interaction-${id}" class="interaction ${escapeHtml(interaction.state)}">
<p class="muted">Interaction ${id} · ${escapeHtml(interaction.created_at)}</p>
${renderAsker(interaction.metadata)}<div class="text">${renderQuestionText(interaction.text)}</div>
${renderExpiry(interaction, context.now)}`;
  if (interaction.state === "pending" && !isPastExpiry(interaction, context.now)) {
    const action = questionPath(link, interaction);
    const editOption = interaction.options.find((option) => option.id === editAnswer.optionId);
    const items = readBatchItems(interaction.metadata);
    const someOption = items
      ? interaction.options.find((option) => option.id === batchAnswer.approveSome.id)
      : undefined;
    const choices = interaction.options.filter(
      (option) => option !== editOption && option !== someOption,
    );
    if (!shown.full)
      return `${head}\n${renderQuickAnswer(action, choices, editOption, someOption, context)}\n</article>`;
    const { correct } = shown;
    const buttons =
      interaction.options.length === 0
        ? `<button type="submit" name="option_id" value="${freeTextOptionId}">Send answer</button>`
        : choices.map(optionButton).join("\n");
    const noteLabel = interaction.options.length === 0 ? "Your answer" : "Note (optional)";
    // What the person typed comes back to the form they sent, with why it was not sent.
    const forEdit = correct?.optionId === editAnswer.optionId ? correct : undefined;
    const forItems = correct?.optionId === someOption?.id ? correct : undefined;
    const forNote = correct && !forEdit && !forItems ? correct : undefined;
    const edit = editOption
      ? `\n${renderEditForm(interaction, editOption, action, context, forEdit)}`
      : "";
    const some =
      someOption && items
        ? `\n${renderItemChoice(items, someOption, action, context, forItems)}`
        : "";
    return `${head}
<form method="post" action="${action}">
${tokenField(context)}${problemLine(forNote)}<label>${noteLabel}<br><textarea name="note" rows="2" maxlength="${maximumNoteLength}">${escapeHtml(forNote?.typed.note ?? "")}</textarea></label>
<div class="options">${buttons}</div>
</form>${edit}${some}
</article>`;
  }
  return `${head}\n${renderOutcome(interaction)}\n</article>`;
}

/**
 * An open question on the inbox: its plain options as buttons (nothing to
 * type, so the inbox's reload loses nothing), and the way to its own page
 * for a note, a change or a choice of actions.
 */
function renderQuickAnswer(
  action: string,
  choices: readonly MessageOption[],
  editOption: MessageOption | undefined,
  someOption: MessageOption | undefined,
  context: PageContext,
): string {
  const more = [
    "write a note",
    ...(editOption ? ["change the action before approving it"] : []),
    ...(someOption ? ["choose which actions run"] : []),
  ];
  const open = `<p class="more"><a href="${action}">Open this question</a> to ${choices.length === 0 && !editOption && !someOption ? "type your answer" : more.join(", ")}.</p>`;
  if (choices.length === 0) return open;
  return `<form method="post" action="${action}">
${tokenField(context)}<div class="options">${choices.map(optionButton).join("\n")}</div>
</form>
${open}`;
}

function optionButton(option: MessageOption): string {
  return `<button type="submit" name="option_id" value="${escapeHtml(option.id)}" class="option-${escapeHtml(option.id)}">${escapeHtml(escapeUntrustedText(option.label))}</button>`;
}

/**
 * "Approve with changes": the arguments the question asks about as JSON,
 * ready to change (every character that would hide or act on the text
 * around it written as a JSON escape, then HTML-escaped); posting the form
 * answers with the edit option and the JSON as the answer's text.
 */
function renderEditForm(
  interaction: InteractionRecord,
  option: MessageOption,
  action: string,
  context: PageContext,
  correct: AnswerToCorrect | undefined,
): string {
  let current = "";
  if (correct) {
    // The person's own text, as they typed it, for them to correct.
    current = correct.typed.edit;
  } else if (Object.hasOwn(interaction.metadata, editAnswer.metadataKey)) {
    try {
      current = editableJson(interaction.metadata[editAnswer.metadataKey], 2);
    } catch {
      // Metadata came as JSON, so it writes as JSON; an empty box is the fallback.
    }
  }
  const rows = Math.min(20, Math.max(3, current.split("\n").length + 1));
  return `<details class="edit"${current === "" && !correct ? "" : " open"}>
<summary>Change the action, then approve it</summary>
<form method="post" action="${action}">
${tokenField(context)}${problemLine(correct)}<label>The whole arguments, as JSON: only what you leave here runs, once the tool accepts it.<br><textarea name="${editArgumentsField}" rows="${rows}" maxlength="${maximumEditLength}" spellcheck="false">${escapeHtml(current)}</textarea></label>
<div class="options">${optionButton(option)}</div>
</form>
</details>`;
}

/**
 * A question about several numbered actions: a checkbox per action, and the
 * button that approves only the ones checked (posted as `item` fields; the
 * answer's text becomes their numbers, e.g. `1,3`). Nothing is checked to
 * begin with: an action runs only when the person checks it.
 */
function renderItemChoice(
  items: readonly BatchItem[],
  option: MessageOption,
  action: string,
  context: PageContext,
  correct: AnswerToCorrect | undefined,
): string {
  const checked = new Set(correct?.typed.items ?? []);
  const boxes = items
    .map(
      (item) =>
        `<label class="item"><input type="checkbox" name="${itemField}" value="${item.number}"${checked.has(String(item.number)) ? " checked" : ""}> ${item.number}${item.tool === "" ? "" : ` · <code>${escapeHtml(escapeUntrustedText(item.tool))}</code>`}</label>`,
    )
    .join("\n");
  return `<details class="items" open>
<summary>Approve only some of these actions</summary>
<form method="post" action="${action}">
${tokenField(context)}${problemLine(correct)}<fieldset><legend>Check the actions to run; the others do not run.</legend>
${boxes}
</fieldset>
<label>Note (optional)<br><textarea name="note" rows="2" maxlength="${maximumNoteLength}">${escapeHtml(correct?.typed.note ?? "")}</textarea></label>
<div class="options">${optionButton(option)}</div>
</form>
</details>`;
}

/**
 * A pending question whose time is up, before the simulator's timer has
 * marked it expired: it takes no answer any more.
 */
export function isPastExpiry(interaction: InteractionRecord, now: Date): boolean {
  const { expires_at: expiresAt } = interaction;
  return expiresAt !== undefined && new Date(expiresAt).getTime() <= now.getTime();
}

/** When a question expires, or that it has: by the simulator's clock. */
function renderExpiry(interaction: InteractionRecord, now: Date): string {
  const { expires_at: expiresAt, state } = interaction;
  if (expiresAt === undefined) return "";
  const at = new Date(expiresAt);
  const shown = `<time datetime="${escapeHtml(expiresAt)}">${escapeHtml(formatTime(at))}</time>`;
  if (state === "expired" || (state === "pending" && isPastExpiry(interaction, now))) {
    return `<p class="expiry expired">Expired at ${shown}: an answer no longer counts.</p>`;
  }
  if (state !== "pending") return "";
  return `<p class="expiry">Expires at ${shown} (${escapeHtml(formatRemaining(at.getTime() - now.getTime()))}); after that an answer no longer counts.</p>`;
}

function formatTime(time: Date): string {
  return Number.isNaN(time.getTime())
    ? "an unreadable time"
    : `${time.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

function formatRemaining(milliseconds: number): string {
  const minutes = Math.floor(milliseconds / 60_000);
  if (minutes < 1) return "in less than a minute";
  if (minutes < 120) return `in ${minutes} minute${minutes === 1 ? "" : "s"}`;
  const hours = Math.floor(minutes / 60);
  return `in ${hours} hours`;
}

/**
 * Which run asks, for which tool call and task, from the metadata the
 * sender put on the question ({@link readQuestionAsker}), each escaped; a
 * question naming no run id (never an agent's: every run has one) is shown
 * as "not saved". Nothing for a question that names no asker.
 */
function renderAsker(metadata: Record<string, unknown>): string {
  const asker = readQuestionAsker(metadata);
  if (!asker.asked) return "";
  const shown = (value: string) => `<code>${escapeHtml(escapeUntrustedText(value))}</code>`;
  const { runId, tool, toolCallId, task } = asker;
  const parts = [
    runId !== undefined ? `run ${shown(runId)}` : "a run that is not saved (no run id)",
    ...(tool ? [`tool ${shown(tool)}${toolCallId ? ` (call ${shown(toolCallId)})` : ""}`] : []),
    ...(task ? [`task ${shown(task)}`] : []),
  ];
  return `<p class="asker">Asked by ${parts.join(" · ")}</p>\n`;
}

/**
 * A question's text as HTML: escaped as untrusted text, then as HTML, with
 * every URL kept in a span whose host never wraps (a look-alike host broken
 * over two lines is easy to misread) and whose path may wrap only after a
 * `/`.
 */
function renderQuestionText(text: string): string {
  const shown = escapeUntrustedLines(text);
  let html = "";
  let last = 0;
  for (const match of shown.matchAll(urlInText)) {
    const [whole, schemeName = "", host = "", path = ""] = match;
    const scheme = `${schemeName}://`;
    html += escapeHtml(shown.slice(last, match.index - schemeName.length));
    const breakablePath = path.split("/").map(escapeHtml).join("/<wbr>");
    html += `<span class="url">${escapeHtml(scheme)}<span class="host">${escapeHtml(host)}</span>${breakablePath}</span>`;
    last = match.index + whole.length;
  }
  return html + escapeHtml(shown.slice(last));
}

// `scheme://`, the host (with any user and port), then the path, query and fragment up to a space or quote.
// The match starts at `://` and captures the scheme by looking back, so it runs in linear time.
const urlInText = /:\/\/(?<=([a-z][a-z0-9+.-]*):\/\/)([^/?#\s"'<>\\]+)([^\s"'<>]*)/giu;

/** Changed arguments sent as an answer, as JSON (invisible characters as JSON escapes); as escaped text when they are not JSON. */
function answeredJson(text: string): string {
  try {
    return editableJson(JSON.parse(text), 2);
  } catch {
    return escapeUntrustedLines(text);
  }
}

function renderOutcome(interaction: InteractionRecord): string {
  if (interaction.state === "answered" && interaction.answer) {
    const { option_id: optionId, text, answered_at: answeredAt } = interaction.answer;
    const option = interaction.options.find((candidate) => candidate.id === optionId);
    const chosen = option
      ? `${escapeUntrustedText(option.label)} [${escapeUntrustedText(option.id)}]`
      : escapeUntrustedText(optionId);
    if (optionId === editAnswer.optionId && text !== undefined) {
      return `<p class="outcome answered">Answered: ${escapeHtml(chosen)} at ${escapeHtml(answeredAt)}, with these arguments (the agent checks them again before anything runs):</p>\n<pre class="arguments">${escapeHtml(answeredJson(text))}</pre>`;
    }
    const note = text === undefined ? "" : `<br>Note: ${escapeHtml(escapeUntrustedText(text))}`;
    return `<p class="outcome answered">Answered: ${escapeHtml(chosen)} at ${escapeHtml(answeredAt)}${note}</p>`;
  }
  const words: Record<string, string> = {
    expired: "Expired before anyone answered.",
    canceled: "Withdrawn by the sender before anyone answered.",
    failed: "Could not be delivered.",
  };
  return `<p class="outcome ${escapeHtml(interaction.state)}">${escapeHtml(words[interaction.state] ?? interaction.state)}</p>`;
}

/** Why the answer the person sent was not sent on, above the form they sent it with. */
function problemLine(correct: AnswerToCorrect | undefined): string {
  if (!correct) return "";
  return `<p class="problem" role="alert">Nothing was answered: ${escapeHtml(escapeUntrustedText(correct.problem))}. Correct it and send it again.</p>\n`;
}

function tokenField(context: PageContext): string {
  return `<input type="hidden" name="token" value="${escapeHtml(context.formToken)}">\n`;
}

function page(title: string, content: string, refreshSeconds?: number): string {
  const refresh =
    refreshSeconds === undefined ? "" : `\n<meta http-equiv="refresh" content="${refreshSeconds}">`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${escapeHtml(title)} · Switchyard messaging simulator</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1d2330; }
h1 { font-size: 1.4rem; margin-bottom: 0.2rem; }
.muted { color: #667085; font-size: 0.85rem; }
.interaction { border: 1px solid #d0d5dd; border-radius: 8px; padding: 0.8rem 1rem; margin: 1rem 0; }
.interaction.pending { border-color: #f79009; background: #fffcf5; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; overflow-x: auto; font-family: ui-monospace, monospace; font-size: 0.9rem; }
.text .url { overflow-wrap: normal; word-break: keep-all; }
.text .host { white-space: nowrap; overflow-wrap: normal; word-break: keep-all; background: #eef2f6; }
.asker { font-size: 0.85rem; margin: 0.2rem 0 0.5rem; }
form { margin-top: 0.8rem; }
textarea { width: 100%; box-sizing: border-box; font: inherit; }
.options { display: flex; gap: 0.5rem; margin-top: 0.5rem; }
button { font: inherit; padding: 0.35rem 1.1rem; border-radius: 6px; border: 1px solid #98a2b3; background: #fff; cursor: pointer; }
button.option-approve { background: #067647; border-color: #067647; color: #fff; }
button.option-deny { background: #b42318; border-color: #b42318; color: #fff; }
button.option-approve_standing { border-color: #067647; color: #067647; }
.outcome { font-weight: 600; }
.expiry { font-size: 0.85rem; margin: 0.4rem 0 0; }
.expiry.expired { color: #b42318; font-weight: 600; }
details.edit { margin-top: 0.6rem; }
details.items { margin-top: 0.6rem; }
label.item { display: block; margin: 0.2rem 0; }
button.option-approve_some { background: #067647; border-color: #067647; color: #fff; }
details.edit textarea { font-family: ui-monospace, monospace; font-size: 0.85rem; }
button.option-edit { background: #175cd3; border-color: #175cd3; color: #fff; }
.problem { color: #b42318; font-weight: 600; }
.more { font-size: 0.9rem; margin: 0.5rem 0 0; }
pre.arguments { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85rem; background: #eef2f6; padding: 0.5rem; }
</style>
</head>
<body>
${content}
<p class="muted">Served by the Switchyard messaging simulator. Text from the sender is shown with control and invisible characters written out.</p>
</body>
</html>
`;
}
