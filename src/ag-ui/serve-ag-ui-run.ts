import type { Message, RunAgentInput } from "@ag-ui/core";
import type { AgentStream } from "../agent/agent-stream.js";
import { runIdOfApprovalId } from "../agent/approval/approval-id.js";
import { describeThrown } from "../agent/describe-thrown.js";
import {
  RunConflictError,
  RunNotFoundError,
  RunNotResumableError,
} from "../agent/durable/durable-errors.js";
import type { PendingToolCall, RunState } from "../agent/durable/run-state.js";
import type { RunStore } from "../agent/durable/run-store.js";
import type { AgentInput } from "../agent/start-conversation.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { redactError, redactText, secretsOf } from "../internal/redact.js";
import type { AgUiApprover } from "./ag-ui-approver.js";
import { type AgUiEvent, AgUiEventTranslator } from "./ag-ui-event-translator.js";
import type { AgUiHandlerOptions, AgUiRunFailure, AnyAgent } from "./ag-ui-handler-options.js";
import { readAgUiTicket, ticketExpired } from "./ag-ui-ticket.js";
import { checkResume } from "./check-resume.js";
import { runFailureOf } from "./run-failure.js";
import { accessRefusal, personOf } from "./thread-access.js";
import {
  latestThreadRun,
  ownerMetadataKey,
  type ThreadHead,
  threadConversation,
  threadMetadataKey,
  threadRunId,
} from "./thread-runs.js";

/** What one request's run is served with. */
export interface ServeRunOptions extends AgUiHandlerOptions {
  input: RunAgentInput;
  request: Request;
  signal: AbortSignal;
  approver: AgUiApprover;
  runStore: RunStore;
  openAgent: () => AnyAgent | Promise<AnyAgent>;
}

/**
 * Serves one checked RunAgentInput as AG-UI events: who asks and whether
 * the thread is theirs first, then a resume of the run its interrupts
 * belong to, or a new run continuing the thread with the user's message.
 */
export async function* serveRun(options: ServeRunOptions): AsyncGenerator<AgUiEvent> {
  const { input } = options;
  const translator = new AgUiEventTranslator({ threadId: input.threadId, runId: input.runId });
  yield* translator.start();
  try {
    const resuming = input.resume !== undefined && input.resume.length > 0;
    // An answer is the business of the run that asked, whatever became of the thread since.
    const head = resuming ? undefined : await latestThreadRun(options.runStore, input.threadId);
    const owner = head
      ? head.state?.metadata?.[ownerMetadataKey] || undefined
      : await answeredRunOwner(options.runStore, input);
    const person = await personOf(options, options.request, {
      threadId: input.threadId,
      ...(owner !== undefined ? { owner } : {}),
      answering: resuming,
    });
    const refusal = await accessRefusal(options, input.threadId, owner, person);
    if (refusal) {
      yield* translator.error(refusal.code, refusal.message);
      return;
    }
    if (head === undefined) yield* serveResume(options, translator, person);
    else yield* serveMessage(options, translator, head, person);
  } catch (error) {
    yield* failedRequest(options, translator, error, undefined);
  }
}

/**
 * Who owns the run a resume answers, from that run's own state: the first
 * interrupt names it (a resume mixing runs is refused later, as one naming
 * no open interrupt is). `undefined` when the run is gone, belongs to
 * another thread or had nobody named.
 */
async function answeredRunOwner(
  runStore: RunStore,
  input: RunAgentInput,
): Promise<string | undefined> {
  const first = input.resume?.[0]?.interruptId;
  const runId = first === undefined ? undefined : runIdOfApprovalId(first);
  if (runId === undefined) return undefined;
  try {
    const state = await runStore.load(runId);
    if (state.metadata?.[threadMetadataKey] !== input.threadId) return undefined;
    return state.metadata?.[ownerMetadataKey] || undefined;
  } catch (error) {
    if (error instanceof RunNotFoundError) return undefined;
    throw error;
  }
}

/** A resume: checked against the stored run, then spent only once the run takes it. */
async function* serveResume(
  options: ServeRunOptions,
  translator: AgUiEventTranslator,
  person: string | undefined,
): AsyncGenerator<AgUiEvent> {
  const { input, approver, signal } = options;
  const check = await checkResume({
    entries: input.resume ?? [],
    threadId: input.threadId,
    answeredBy: person,
    runStore: options.runStore,
  });
  if ("refused" in check) {
    yield* translator.error(check.refused, check.message);
    return;
  }
  // The calls the interrupted run announced: this run sends only their results.
  translator.announcedBefore(check.state.pendingCalls.map((call) => call.toolCallId));
  // A client gone before the run takes the answer spends nothing: the interrupts stay open.
  if (signal.aborted) return;
  if (approver.recordAnswers(check.answers).length > 0) {
    yield* translator.error(
      "already_answered",
      "Someone is answering this approval question right now; an answer is used once.",
    );
    return;
  }
  const answered = [...check.answers.keys()];
  // biome-ignore lint/suspicious/noExplicitAny: any agent's output.
  let stream: AgentStream<any>;
  let agent: AnyAgent;
  try {
    agent = await options.openAgent();
    if (signal.aborted) {
      approver.forgetAnswers(answered);
      return;
    }
    translator.redactWith(secretsOf(agent));
    translator.runAnswers(check.state.messages);
    // Taken: the run goes on to its end whatever the client does, so what
    // the person approved runs once and the thread's next message sees it.
    stream = agent.resumeStream(check.state);
  } catch (error) {
    approver.forgetAnswers(answered);
    yield* failedRequest(options, translator, error, undefined);
    return;
  }
  void stream.result.finally(() => approver.forgetAnswers(answered));
  yield* followRun(options, translator, stream, agent, check.state.runId, "resume");
}

/** A user message: a new run continuing the thread the run store holds. */
async function* serveMessage(
  options: ServeRunOptions,
  translator: AgUiEventTranslator,
  head: ThreadHead,
  person: string | undefined,
): AsyncGenerator<AgUiEvent> {
  const { input, signal } = options;
  const text = lastUserText(input.messages);
  if (text === undefined) {
    yield* translator.error(
      "no_user_message",
      "The request has no user message with text to answer; send the person's message.",
    );
    return;
  }
  let latest = head.state;
  if (latest?.status === "suspended") {
    const open = openInterrupts(latest);
    if (!open.every((call) => ticketExpired(readAgUiTicket(call.ticket)))) {
      yield* translator.error(
        "interrupt_open",
        `This conversation waits for an answer to ${open.length === 1 ? "an approval question" : `${open.length} approval questions`} (interrupt ${open.map((call) => JSON.stringify(call.approvalId)).join(", ")}): approve or deny ${open.length === 1 ? "it" : "them"} before sending a new message.`,
      );
      return;
    }
    // Every question expired: settle them (the calls end expired), then go on.
    latest = await settleExpired(options, latest);
  }
  if (latest?.status === "running") {
    yield* translator.error(
      "thread_busy",
      "The assistant is still working on the previous message of this conversation; wait for it to finish, then send yours.",
    );
    return;
  }
  const runId = threadRunId(input.threadId, head.turn + 1);
  // biome-ignore lint/suspicious/noExplicitAny: any agent's output.
  let stream: AgentStream<any>;
  let agent: AnyAgent;
  try {
    agent = await options.openAgent();
    translator.redactWith(secretsOf(agent));
    if (head.missingTurns.length > 0) {
      // Said, not mended: the latest run holds what was said in them, the client's copy never fills in.
      agent.logger?.warn(
        { threadId: input.threadId, runId, missingTurns: head.missingTurns },
        `AG-UI thread goes on from turn ${head.turn}; the runs of its turns ${head.missingTurns.join(", ")} are gone`,
      );
    }
    const conversation: AgentInput = latest
      ? [...threadConversation(latest), { role: "user", content: text }]
      : text;
    translator.runAnswers([{ role: "user", content: text }]);
    stream = agent.stream(conversation, {
      signal,
      suspendOnApproval: true,
      runId,
      // Whoever sent the message started this run (the owner, or someone threadAccess lets in):
      // with an approver directory, they do not approve what it asks unless a rule allows it.
      ...(person !== undefined ? { startedBy: { channel: "agUi", id: person } as const } : {}),
      metadata: {
        [threadMetadataKey]: input.threadId,
        [ownerMetadataKey]: head.state?.metadata?.[ownerMetadataKey] ?? person ?? "",
        agUiRunId: input.runId,
      },
    });
  } catch (error) {
    yield* failedRequest(options, translator, error, runId);
    return;
  }
  yield* followRun(options, translator, stream, agent, runId, "message");
}

/** The run's events as AG-UI events; a run that ended without finishing is logged and told as a code. */
async function* followRun(
  options: ServeRunOptions,
  translator: AgUiEventTranslator,
  // biome-ignore lint/suspicious/noExplicitAny: any agent's output.
  stream: AgentStream<any>,
  agent: AnyAgent,
  runId: string,
  kind: "resume" | "message",
): AsyncGenerator<AgUiEvent> {
  try {
    for await (const event of stream) {
      if (event.type !== "finish") {
        yield* translator.translate(event);
        continue;
      }
      const { result } = event;
      if (result.status === "completed" || result.status === "suspended") {
        yield* translator.translate(event);
        continue;
      }
      // Another request took the run or the turn first: nothing ran here.
      if (result.steps.length === 0 && takenElsewhere(result.error)) {
        yield* translator.error(
          kind === "resume" ? "already_answered" : "thread_busy",
          kind === "resume"
            ? "This approval question was answered by another request; an answer is used once."
            : "The assistant is already answering another message of this conversation; wait for it to finish, then send yours.",
        );
        continue;
      }
      const failure = runFailureOf(result);
      await report(options, agent, { ...failure, runId, error: result.error });
      yield* translator.finishWith(failure.code, failure.message);
    }
  } catch (error) {
    yield* failedRequest(options, translator, error, runId, agent);
  }
}

/** Resumes a run whose every question expired, without answers, to its end; the state it ended in. */
async function settleExpired(options: ServeRunOptions, state: RunState): Promise<RunState> {
  const agent = await options.openAgent();
  const result = await agent.resume(state);
  return result.state ?? (await options.runStore.load(state.runId));
}

function openInterrupts(state: RunState): PendingToolCall[] {
  return state.pendingCalls.filter(
    (call) => call.phase === "awaiting_approval" && call.approvalId !== undefined,
  );
}

function takenElsewhere(error: Error | undefined): boolean {
  return (
    error instanceof RunNotResumableError ||
    error instanceof RunConflictError ||
    (error instanceof ConfigurationError && /already|taken/i.test(error.message))
  );
}

/** A request that failed on the server: logged with what failed, told to the client in words without it. */
async function* failedRequest(
  options: ServeRunOptions,
  translator: AgUiEventTranslator,
  error: unknown,
  runId: string | undefined,
  agent?: AnyAgent,
): AsyncGenerator<AgUiEvent> {
  const failure = {
    code: "internal_error",
    message:
      "The server could not handle this request. The people running this service can see what happened in its log.",
  };
  await report(options, agent ?? (await agentIfAny(options)), {
    ...failure,
    runId,
    error: error instanceof Error ? error : new Error(String(error)),
  });
  yield* translator.finishWith(failure.code, failure.message);
}

/** The agent, for its logger and secrets on a failure before the request had it; none when it cannot be built. */
async function agentIfAny(options: ServeRunOptions): Promise<AnyAgent | undefined> {
  try {
    return await options.openAgent();
  } catch {
    return undefined;
  }
}

/**
 * Logs a failure on the server and tells `onError`, both with the agent's
 * secrets removed: `onError` gets a redacted copy of the error (its cause
 * and properties too) when it held one, never the original.
 */
async function report(
  options: ServeRunOptions,
  agent: AnyAgent | undefined,
  failure: Omit<AgUiRunFailure, "threadId">,
): Promise<void> {
  const logger = agent?.logger;
  const secrets = secretsOf(agent)?.values() ?? [];
  const full: AgUiRunFailure = {
    ...failure,
    threadId: options.input.threadId,
    error: failure.error ? redactError(failure.error, secrets) : undefined,
  };
  const detail = full.error ? redactText(describeThrown(full.error), secrets) : undefined;
  logger?.error(
    { code: full.code, threadId: full.threadId, runId: full.runId, error: detail },
    `AG-UI run ended ${full.code}`,
  );
  if (options.onError === undefined) return;
  try {
    await options.onError(full);
  } catch (thrown) {
    logger?.warn({ error: redactText(describeThrown(thrown), secrets) }, "onError threw; ignored");
  }
}

/** The text of the last user message: all a new run takes from the client's messages. */
function lastUserText(messages: readonly Message[]): string | undefined {
  const message = messages.findLast((candidate) => candidate.role === "user");
  if (message === undefined) return undefined;
  const content: unknown = message.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content
            .filter((part): part is { type: "text"; text: string } => part?.type === "text")
            .map((part) => part.text)
            .join("\n")
        : "";
  return text.trim() === "" ? undefined : text;
}
