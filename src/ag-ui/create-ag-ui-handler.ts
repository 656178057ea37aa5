import type { Message, RunAgentInput } from "@ag-ui/core";
import type * as SchemasModule from "@ag-ui/core/schemas";
import type { Logger } from "pino";
import type { Agent } from "../agent/agent.js";
import type { AgentStream } from "../agent/agent-stream.js";
import { describeThrown } from "../agent/describe-thrown.js";
import { RunConflictError, RunNotResumableError } from "../agent/durable/durable-errors.js";
import type { PendingToolCall, RunState } from "../agent/durable/run-state.js";
import type { RunStore } from "../agent/durable/run-store.js";
import type { AgentInput } from "../agent/start-conversation.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { loadOptionalPeer } from "../internal/load-optional-peer.js";
import { redactText, secretsOf } from "../internal/redact.js";
import { FileRunStore } from "../stores/file-run-store.js";
import { AgUiApprover } from "./ag-ui-approver.js";
import { type AgUiEvent, AgUiEventTranslator } from "./ag-ui-event-translator.js";
import { readAgUiTicket, ticketExpired } from "./ag-ui-ticket.js";
import { checkResume } from "./check-resume.js";
import { eventStreamResponse } from "./event-stream-response.js";
import { readCappedBody } from "./read-capped-body.js";
import { runFailureOf } from "./run-failure.js";
import {
  latestThreadRun,
  ownerMetadataKey,
  type ThreadHead,
  threadConversation,
  threadMetadataKey,
  threadRunId,
} from "./thread-runs.js";

// biome-ignore lint/suspicious/noExplicitAny: any agent, whatever its output schema and tool names.
type AnyAgent = Agent<any, any>;

/** What a per-request agent factory is given. */
export interface AgUiAgentContext {
  /** Build the agent with this approver: it turns approvals into AG-UI interrupts. */
  approver: AgUiApprover;
  /** Build the agent with this run store: suspended runs wait in it for their answers. */
  runStore: RunStore;
  /** The HTTP request (its headers, to pick a model or tools per user). */
  request: Request;
  /** The checked RunAgentInput. */
  input: RunAgentInput;
}

/** What `authorize` is told about the request it names the person behind. */
interface AgUiAuthorizeContext {
  /** The thread the request is for. */
  threadId: string;
  /** Who started the thread, as `authorize` named them then; absent for a new thread. */
  owner?: string | undefined;
  /** True when the request answers interrupts (`resume`), false when it sends a message. */
  answering: boolean;
}

/** A run that ended without finishing, or a request that failed on the server, as `onError` is told. */
interface AgUiRunFailure {
  /** The `code` of the RUN_ERROR the client got (see `docs/errors.md`). */
  code: string;
  /** The words the client got. */
  message: string;
  threadId: string;
  /** The Switchyard run, when one was started or resumed. */
  runId?: string | undefined;
  /** What failed, secrets removed: for your logs and alerts, never for the client. */
  error?: Error | undefined;
}

/** Options of {@link createAgUiHandler}. */
export interface AgUiHandlerOptions {
  /**
   * The agent that serves the runs, or a function building one per request
   * from the handler's approver and run store. A ready agent must have been
   * built with this handler's `approver` and `runStore` (pass both here too).
   */
  agent: AnyAgent | ((context: AgUiAgentContext) => AnyAgent | Promise<AnyAgent>);
  /**
   * The approver the agent asks; required with a ready agent. Its
   * `timeoutMs` is how long an interrupt can be answered (`expiresAt`).
   * @default a new AgUiApprover
   */
  approver?: AgUiApprover | undefined;
  /**
   * Where runs are kept: each thread's conversation (one run per user
   * message) and the runs waiting for an approval, the truth about which
   * interrupts are open, in which thread, for which action. Required with
   * a ready agent (the agent's own `runStore`).
   * @default a FileRunStore (the `SWITCHYARD_STATE_DIR` directory, else `.switchyard`)
   */
  runStore?: RunStore | undefined;
  /**
   * Names the person behind a request (from your session or token check),
   * for every request: one that starts a thread, continues it or answers
   * its interrupts. Resolve `undefined` (or throw) to refuse the request
   * (`unauthorized`) before anything runs. The person who starts a thread
   * owns it: only they continue it and answer its interrupts (see
   * `threadAccess`); they are recorded as `approvedBy` in the audit trail.
   * Without it, anyone may start and continue threads, and every answer is
   * refused: an approval must come from someone. The request's body has
   * already been read.
   */
  authorize?:
    | ((
        request: Request,
        context: AgUiAuthorizeContext,
      ) => string | undefined | Promise<string | undefined>)
    | undefined;
  /**
   * Who else may continue a thread and answer its interrupts: called when
   * the person `authorize` names is not the thread's owner; true lets them.
   * @default only the owner
   */
  threadAccess?:
    | ((person: string, thread: { threadId: string; owner: string }) => boolean | Promise<boolean>)
    | undefined;
  /**
   * Called for each run that ended without finishing (a model failure, a
   * step limit, an expired approval) and each request that failed on the
   * server, after the agent's logger logged it: for your alerts. What it
   * throws is logged and ignored.
   */
  onError?: ((failure: AgUiRunFailure) => void | Promise<void>) | undefined;
  /**
   * The largest request body read, in bytes: a whole number, at least 1;
   * a larger body is answered 413.
   * @default 1_048_576
   */
  maxBodyBytes?: number | undefined;
}

/** A Fetch API handler: what Next.js route handlers, Hono and `toNodeHandler` serve. */
export type AgUiHandler = (request: Request) => Promise<Response>;

const schemas = (neededBy: string) =>
  loadOptionalPeer<typeof SchemasModule>("@ag-ui/core/schemas", neededBy);

/**
 * Serves a Switchyard agent over AG-UI 1.0: POST a RunAgentInput, read the
 * run's events as server-sent events. A thread is a conversation the run
 * store holds: each user message starts a run that continues it, and the
 * person who started it owns it. A call that needs approval ends the
 * AG-UI run with RUN_FINISHED whose outcome is an interrupt per gated
 * action; the run itself waits in the run store, and the thread takes no
 * new message until they are answered. The next RunAgentInput's `resume`
 * entries answer them: each is checked against the stored run (an open
 * interrupt of this thread, not expired, the action as it was shown, an
 * answer it offered, answered once, by the person `authorize` names)
 * before anything is spent, and refused with RUN_ERROR otherwise. Messages
 * the client sends are never taken as history, tool results or approvals:
 * only the text of its last user message is read.
 *
 * @example
 * const handler = createAgUiHandler({
 *   agent: ({ approver, runStore }) => new Agent({ model, tools, approver, runStore }),
 *   authorize: async (request) => (await session(request))?.email,
 * });
 * export const POST = handler; // a Next.js route handler
 */
export function createAgUiHandler(options: AgUiHandlerOptions): AgUiHandler {
  const { agent } = options;
  const ready = typeof agent !== "function";
  if (ready && (options.approver === undefined || options.runStore === undefined)) {
    throw new ConfigurationError(
      "createAgUiHandler: with a ready agent, pass the approver and runStore it was built with (an AgUiApprover and a RunStore), or pass agent as a function ({ approver, runStore }) => new Agent({ ..., approver, runStore }).",
    );
  }
  if (options.approver !== undefined && !(options.approver instanceof AgUiApprover)) {
    throw new ConfigurationError("createAgUiHandler: approver must be an AgUiApprover.");
  }
  const { maxBodyBytes = 1_048_576 } = options;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new ConfigurationError(
      `createAgUiHandler: maxBodyBytes must be a whole number of bytes, at least 1 (e.g. 1_048_576 for 1 MiB); got ${String(maxBodyBytes)}.`,
    );
  }
  const { RunAgentInputSchema } = schemas("createAgUiHandler");
  const approver = options.approver ?? new AgUiApprover();
  const runStore = options.runStore ?? new FileRunStore();

  return async (request) => {
    if (request.method !== "POST") {
      return new Response("Send the RunAgentInput with POST.\n", {
        status: 405,
        headers: { allow: "POST", "content-type": "text/plain; charset=utf-8" },
      });
    }
    const body = await readCappedBody(request, maxBodyBytes);
    if (typeof body !== "string") return body;
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return badRequest("The request body is not JSON: send a RunAgentInput.");
    }
    const parsed = RunAgentInputSchema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 5)
        .map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`);
      return badRequest(`The request body is not a RunAgentInput: ${issues.join("; ")}.`);
    }
    const input = parsed.data as RunAgentInput;
    const openAgent = () => (ready ? agent : agent({ approver, runStore, request, input }));
    const run = (signal: AbortSignal) =>
      serveRun({ ...options, input, request, signal, approver, runStore, openAgent });
    return eventStreamResponse(run, request.signal);
  };
}

interface ServeRunOptions extends AgUiHandlerOptions {
  input: RunAgentInput;
  request: Request;
  signal: AbortSignal;
  approver: AgUiApprover;
  runStore: RunStore;
  openAgent: () => AnyAgent | Promise<AnyAgent>;
}

/** A request the handler will not act on, and the words the client gets. */
interface Refusal {
  code: string;
  message: string;
}

async function* serveRun(options: ServeRunOptions): AsyncGenerator<AgUiEvent> {
  const { input } = options;
  const translator = new AgUiEventTranslator({ threadId: input.threadId, runId: input.runId });
  yield* translator.start();
  try {
    const resuming = input.resume !== undefined && input.resume.length > 0;
    const head = await latestThreadRun(options.runStore, input.threadId);
    const owner = head.state?.metadata?.[ownerMetadataKey] || undefined;
    const person = await personOf(options, owner, resuming);
    const refusal = await accessRefusal(options, owner, person);
    if (refusal) {
      yield* translator.error(refusal.code, refusal.message);
      return;
    }
    if (resuming) yield* serveResume(options, translator, person);
    else yield* serveMessage(options, translator, head, person);
  } catch (error) {
    yield* failedRequest(options, translator, error, undefined);
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
    const conversation: AgentInput = latest
      ? [...threadConversation(latest), { role: "user", content: text }]
      : text;
    stream = agent.stream(conversation, {
      signal,
      suspendOnApproval: true,
      runId,
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
      await report(options, agent.logger, { ...failure, runId, error: result.error });
      yield* translator.finishWith(failure.code, failure.message);
    }
  } catch (error) {
    yield* failedRequest(options, translator, error, runId, agent.logger);
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
  logger?: Logger,
): AsyncGenerator<AgUiEvent> {
  const failure = {
    code: "internal_error",
    message:
      "The server could not handle this request. The people running this service can see what happened in its log.",
  };
  await report(options, logger, {
    ...failure,
    runId,
    error: error instanceof Error ? error : new Error(String(error)),
  });
  yield* translator.finishWith(failure.code, failure.message);
}

/** Logs a failure on the server (what failed, secrets removed) and tells `onError`. */
async function report(
  options: ServeRunOptions,
  logger: Logger | undefined,
  failure: Omit<AgUiRunFailure, "threadId">,
): Promise<void> {
  const full: AgUiRunFailure = { ...failure, threadId: options.input.threadId };
  const detail = full.error ? redactText(describeThrown(full.error)) : undefined;
  logger?.error(
    { code: full.code, threadId: full.threadId, runId: full.runId, error: detail },
    `AG-UI run ended ${full.code}`,
  );
  if (options.onError === undefined) return;
  try {
    await options.onError(full);
  } catch (thrown) {
    logger?.warn({ error: redactText(describeThrown(thrown)) }, "onError threw; ignored");
  }
}

/** The person behind the request, as `authorize` names them; `undefined` when it names nobody or is not given. */
async function personOf(
  options: ServeRunOptions,
  owner: string | undefined,
  answering: boolean,
): Promise<string | undefined> {
  if (options.authorize === undefined) return undefined;
  try {
    const name = await options.authorize(options.request, {
      threadId: options.input.threadId,
      ...(owner !== undefined ? { owner } : {}),
      answering,
    });
    return typeof name === "string" && name.trim() !== "" ? name.trim().slice(0, 200) : undefined;
  } catch {
    return undefined;
  }
}

/** Why this person may not use this thread; `undefined` when they may. */
async function accessRefusal(
  options: ServeRunOptions,
  owner: string | undefined,
  person: string | undefined,
): Promise<Refusal | undefined> {
  if (options.authorize === undefined) return undefined;
  if (person === undefined) {
    return {
      code: "unauthorized",
      message:
        "This server does not know who you are, so it cannot take your request: sign in and try again.",
    };
  }
  if (owner === undefined || owner === person) return undefined;
  const { threadAccess } = options;
  const allowed =
    threadAccess !== undefined &&
    (await Promise.resolve(threadAccess(person, { threadId: options.input.threadId, owner })).catch(
      () => false,
    )) === true;
  return allowed
    ? undefined
    : {
        code: "not_thread_owner",
        message:
          "This conversation belongs to someone else: only the person who started it can continue it or answer its questions. Start a new conversation.",
      };
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

function badRequest(message: string): Response {
  return new Response(`${message}\n`, {
    status: 400,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}
