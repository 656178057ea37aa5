import type { ResumeEntry } from "@ag-ui/core";
import { runIdOfApprovalId } from "../agent/approval/approval-id.js";
import { RunNotFoundError } from "../agent/durable/durable-errors.js";
import type { PendingToolCall, RunState } from "../agent/durable/run-state.js";
import type { RunStore } from "../agent/durable/run-store.js";
import { buildOnFirstUse } from "../internal/build-on-first-use.js";
import { loadZod } from "../internal/load-zod.js";
import type { AgUiAnswer } from "./ag-ui-approver.js";
import { readAgUiTicket, ticketExpired } from "./ag-ui-ticket.js";
import { threadMetadataKey } from "./thread-runs.js";

/**
 * Why a request was refused before anything ran: the `code` of its
 * RUN_ERROR. A resume: `unauthorized` (nobody named), `not_thread_owner`,
 * `unknown_interrupt`, `already_answered`, `other_thread`, `other_run`,
 * `incomplete_resume`, `changed_action`, `invalid_answer` (malformed, or
 * an edit or standing approval the interrupt did not offer),
 * `interrupt_expired`. A message: `unauthorized`, `not_thread_owner`,
 * `interrupt_open` (the thread waits for answers), `thread_busy` (a run of
 * the thread is going on), `no_user_message`.
 */
export type ResumeRefusalCode =
  | "unauthorized"
  | "not_thread_owner"
  | "unknown_interrupt"
  | "already_answered"
  | "other_thread"
  | "other_run"
  | "incomplete_resume"
  | "changed_action"
  | "invalid_answer"
  | "interrupt_expired"
  | "interrupt_open"
  | "thread_busy"
  | "no_user_message";

/** A resume the handler will not act on; nothing ran. */
export interface ResumeRefusal {
  refused: ResumeRefusalCode;
  message: string;
}

/** A resume whose every entry answers an open interrupt of one stored run, as it was asked. */
export interface CheckedResume {
  state: RunState;
  answers: Map<string, AgUiAnswer>;
}

/** What the handler knows when it checks a resume. */
export interface ResumeCheckOptions {
  entries: readonly ResumeEntry[];
  threadId: string;
  /** Who answers, from `authorize`; `undefined` refuses every entry. */
  answeredBy: string | undefined;
  runStore: RunStore;
}

const answerSchema = buildOnFirstUse(() => {
  const { z } = loadZod();
  return z.strictObject({
    approved: z.boolean(),
    fingerprint: z.string().max(100),
    editedArgs: z.record(z.string(), z.unknown()).optional(),
    note: z.string().max(2000).optional(),
    standing: z.boolean().optional(),
  });
});

/**
 * Checks the `resume` entries of a RunAgentInput against the run store,
 * which holds the truth: each must name an interrupt the server minted
 * that is still open, in a run of this thread, all of one run, all of that
 * run's open interrupts answered, each approval naming the fingerprint of
 * the action as it was shown. Anything else is a refusal, and nothing runs.
 */
export async function checkResume(
  options: ResumeCheckOptions,
): Promise<CheckedResume | ResumeRefusal> {
  const { entries, threadId } = options;
  if (options.answeredBy === undefined) {
    return refuse(
      "unauthorized",
      "This server does not know who is answering, so it cannot take an approval: sign in and answer again.",
    );
  }
  const ids = entries.map((entry) => entry.interruptId);
  if (new Set(ids).size !== ids.length) {
    return refuse(
      "invalid_answer",
      "The answer names the same approval question twice; answer each question once.",
    );
  }
  const runIds = new Set<string>();
  for (const id of ids) {
    const runId = runIdOfApprovalId(id);
    if (runId === undefined) return unknown(id);
    runIds.add(runId);
  }
  if (runIds.size !== 1) {
    return refuse(
      "other_run",
      "The answer mixes approval questions of different requests; answer the questions of one request at a time.",
    );
  }
  let state: RunState;
  try {
    state = await options.runStore.load([...runIds][0] as string);
  } catch (error) {
    if (error instanceof RunNotFoundError) return unknown(ids[0] as string);
    throw error;
  }
  if (state.metadata?.[threadMetadataKey] !== threadId) {
    return refuse(
      "other_thread",
      "This approval question belongs to another conversation; answer it in the conversation that asked it.",
    );
  }
  const open = new Map<string, PendingToolCall>();
  if (state.status === "suspended") {
    for (const call of state.pendingCalls) {
      if (call.phase === "awaiting_approval" && call.approvalId !== undefined)
        open.set(call.approvalId, call);
    }
  }
  for (const id of ids) {
    if (open.has(id)) continue;
    if (wasAnswered(state, id)) {
      return refuse(
        "already_answered",
        "This approval question was answered already; an answer is used once.",
      );
    }
    return unknown(id);
  }
  if (open.size !== ids.length) {
    return refuse(
      "incomplete_resume",
      `The assistant waits for answers to ${open.size} approval questions and this answer gives ${ids.length}; answer all of them together.`,
    );
  }
  const ticketOf = (call: PendingToolCall) => readAgUiTicket(call.ticket);
  for (const entry of entries) {
    const call = open.get(entry.interruptId) as PendingToolCall;
    // An expired question can only be dismissed: the call then ends expired.
    if (ticketExpired(ticketOf(call)) && entry.status !== "cancelled") {
      return refuse(
        "interrupt_expired",
        `This approval question expired at ${ticketOf(call).expiresAt}; nothing it asked about ran. Dismiss it (status "cancelled") to carry on.`,
      );
    }
  }
  const answers = new Map<string, AgUiAnswer>();
  for (const entry of entries) {
    const call = open.get(entry.interruptId) as PendingToolCall;
    // An expired question's dismissal records nothing: the run reads it as expired.
    if (ticketExpired(ticketOf(call))) continue;
    const answer = readAnswer(entry, call, options.answeredBy, ticketOf(call).edits);
    if ("refused" in answer) return answer;
    answers.set(entry.interruptId, answer);
  }
  return { state, answers };
}

function readAnswer(
  entry: ResumeEntry,
  call: PendingToolCall,
  answeredBy: string,
  edits: readonly string[] | undefined,
): AgUiAnswer | ResumeRefusal {
  const note = noteOf(entry);
  if (entry.status === "cancelled") return { decision: "cancel", answeredBy, note };
  const parsed = answerSchema().safeParse(entry.payload);
  if (!parsed.success) {
    return refuse(
      "invalid_answer",
      `The answer to approval question ${JSON.stringify(entry.interruptId)} is not { approved, fingerprint, editedArgs?, note?, standing? }: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "payload"}: ${issue.message}`).join("; ")}.`,
    );
  }
  const payload = parsed.data;
  if (payload.fingerprint !== call.fingerprint) {
    return refuse(
      "changed_action",
      "This answer is about another action than the one the question asks about; show the question again and answer it.",
    );
  }
  if (!payload.approved) {
    if (payload.editedArgs !== undefined || payload.standing === true) {
      return refuse(
        "invalid_answer",
        "This answer denies the action but also changes or extends it; send one or the other.",
      );
    }
    return { decision: "deny", answeredBy, note: payload.note ?? note };
  }
  if (payload.standing === true && call.standing === undefined) {
    return refuse(
      "invalid_answer",
      "This answer also approves the next actions like this one, which this question did not offer; approve this one alone.",
    );
  }
  if (
    payload.editedArgs !== undefined &&
    edits !== undefined &&
    !edits.includes(entry.interruptId)
  ) {
    return refuse(
      "invalid_answer",
      "This answer changes the action, which this question did not offer; approve or deny it as it is.",
    );
  }
  return {
    decision: "approve",
    answeredBy,
    note: payload.note ?? note,
    editedArguments: payload.editedArgs,
    standing: payload.standing,
  };
}

function noteOf(entry: ResumeEntry): string | undefined {
  const payload = entry.payload as { note?: unknown } | undefined;
  return typeof payload?.note === "string" ? payload.note.slice(0, 2000) : undefined;
}

function wasAnswered(state: RunState, interruptId: string): boolean {
  return (
    (state.finishedCalls ?? []).some((call) => call.approval?.approvalId === interruptId) ||
    state.pendingCalls.some((call) => call.approvalId === interruptId)
  );
}

function unknown(interruptId: string): ResumeRefusal {
  return refuse(
    "unknown_interrupt",
    `No open approval question has the id ${JSON.stringify(interruptId.slice(0, 200))}; answer a question this server asked.`,
  );
}

function refuse(code: ResumeRefusalCode, message: string): ResumeRefusal {
  return { refused: code, message };
}
