import type { Message, RunAgentInput } from "@ag-ui/core";
import type * as SchemasModule from "@ag-ui/core/schemas";
import type { Agent } from "../agent/agent.js";
import type { AgentEvent } from "../agent/agent-events.js";
import { describeThrown } from "../agent/describe-thrown.js";
import { newRunId } from "../agent/durable/run-id.js";
import type { RunStore } from "../agent/durable/run-store.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { loadOptionalPeer } from "../internal/load-optional-peer.js";
import { secretsOf } from "../internal/redact.js";
import { FileRunStore } from "../stores/file-run-store.js";
import { AgUiApprover } from "./ag-ui-approver.js";
import { type AgUiEvent, AgUiEventTranslator } from "./ag-ui-event-translator.js";
import { checkResume, threadMetadataKey } from "./check-resume.js";
import { eventStreamResponse } from "./event-stream-response.js";
import { readCappedBody } from "./read-capped-body.js";

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

/** Options of {@link createAgUiHandler}. */
export interface AgUiHandlerOptions {
  /**
   * The agent that serves the runs, or a function building one per request
   * from the handler's approver and run store. A ready agent must have been
   * built with this handler's `approver` and `runStore` (pass both here too).
   */
  agent: AnyAgent | ((context: AgUiAgentContext) => AnyAgent | Promise<AnyAgent>);
  /**
   * The approver the agent asks; required with a ready agent.
   * @default a new AgUiApprover
   */
  approver?: AgUiApprover | undefined;
  /**
   * Where runs waiting for an approval are kept: the truth about which
   * interrupts are open, in which thread, for which action. Required with
   * a ready agent (the agent's own `runStore`).
   * @default a FileRunStore (the `SWITCHYARD_STATE_DIR` directory, else `.switchyard`)
   */
  runStore?: RunStore | undefined;
  /**
   * Names the person behind a request that answers interrupts (from your
   * session or token check), recorded as `approvedBy` in the audit trail.
   * Resolve `undefined` (or throw) to refuse the answers. Without it, every
   * answer is refused: an approval must come from someone. `resume.threadId`
   * is the thread whose interrupts the request answers (every entry is
   * checked to belong to it), so an application can let only the thread's
   * owner answer. The request's body has already been read.
   */
  authorize?:
    | ((
        request: Request,
        resume: { threadId: string },
      ) => string | undefined | Promise<string | undefined>)
    | undefined;
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
 * run's events as server-sent events. A call that needs approval ends the
 * AG-UI run with RUN_FINISHED whose outcome is an interrupt per gated
 * action; the run itself waits in the run store. The next RunAgentInput's
 * `resume` entries answer them: each is checked against the stored run
 * (an open interrupt of this thread, the action as it was shown, answered
 * once, by the person `authorize` names) before anything runs, and refused
 * with RUN_ERROR otherwise. Messages the client sends are never taken as
 * history, tool results or approvals: a new run starts from the last user
 * message only.
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
      serveRun({
        input,
        request,
        signal,
        approver,
        runStore,
        openAgent,
        authorize: options.authorize,
      });
    return eventStreamResponse(run, request.signal);
  };
}

interface ServeRunOptions {
  input: RunAgentInput;
  request: Request;
  signal: AbortSignal;
  approver: AgUiApprover;
  runStore: RunStore;
  openAgent: () => AnyAgent | Promise<AnyAgent>;
  authorize: AgUiHandlerOptions["authorize"];
}

async function* serveRun(options: ServeRunOptions): AsyncGenerator<AgUiEvent> {
  const { input, approver, signal } = options;
  const translator = new AgUiEventTranslator({ threadId: input.threadId, runId: input.runId });
  yield* translator.start();
  let answered: string[] = [];
  try {
    let stream: AsyncIterable<AgentEvent<unknown>>;
    if (input.resume !== undefined && input.resume.length > 0) {
      const check = await checkResume({
        entries: input.resume,
        threadId: input.threadId,
        answeredBy: await answererOf(options),
        runStore: options.runStore,
      });
      if ("refused" in check) {
        yield* translator.error(check.refused, check.message);
        return;
      }
      const busy = approver.recordAnswers(check.answers);
      if (busy.length > 0) {
        yield* translator.error(
          "already_answered",
          "Another request is answering these interrupts right now; an answer is used once.",
        );
        return;
      }
      answered = [...check.answers.keys()];
      const agent = await options.openAgent();
      translator.redactWith(secretsOf(agent));
      stream = agent.resumeStream(check.state, { signal });
    } else {
      const text = lastUserText(input.messages);
      if (text === undefined) {
        yield* translator.error(
          "no_user_message",
          "The RunAgentInput has no user message with text to start a run from.",
        );
        return;
      }
      const agent = await options.openAgent();
      translator.redactWith(secretsOf(agent));
      stream = agent.stream(text, {
        signal,
        suspendOnApproval: true,
        runId: newRunId(),
        metadata: { [threadMetadataKey]: input.threadId, agUiRunId: input.runId },
      });
    }
    for await (const event of stream) yield* translator.translate(event);
  } catch (error) {
    yield* translator.error("internal_error", translator.redact(describeThrown(error)));
  } finally {
    approver.forgetAnswers(answered);
  }
}

async function answererOf(options: ServeRunOptions): Promise<string | undefined> {
  if (options.authorize === undefined) return undefined;
  try {
    const name = await options.authorize(options.request, { threadId: options.input.threadId });
    return typeof name === "string" && name.trim() !== "" ? name.trim().slice(0, 200) : undefined;
  } catch {
    return undefined;
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

function badRequest(message: string): Response {
  return new Response(`${message}\n`, {
    status: 400,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}
