import type { RunAgentInput } from "@ag-ui/core";
import type { Agent } from "../agent/agent.js";
import type { RunStore } from "../agent/durable/run-store.js";
import type { AgUiApprover } from "./ag-ui-approver.js";

// biome-ignore lint/suspicious/noExplicitAny: any agent, whatever its output schema and tool names.
export type AnyAgent = Agent<any, any>;

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
export interface AgUiAuthorizeContext {
  /** The thread the request is for. */
  threadId: string;
  /** Who started the thread, as `authorize` named them then; absent for a new thread. */
  owner?: string | undefined;
  /** True when the request answers interrupts (`resume`), false when it sends a message. */
  answering: boolean;
}

/** A run that ended without finishing, or a request that failed on the server, as `onError` is told. */
export interface AgUiRunFailure {
  /** The `code` of the RUN_ERROR the client got (see `docs/errors.md`). */
  code: string;
  /** The words the client got. */
  message: string;
  threadId: string;
  /** The Switchyard run, when one was started or resumed. */
  runId?: string | undefined;
  /** What failed, with the agent's secrets removed (a redacted copy, its causes too, when it held any): for your logs and alerts, never for the client. */
  error?: Error | undefined;
}

/** Options of `createAgUiHandler`. */
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
   * The name is the person's AG-UI principal: with the agent's
   * `approverDirectory`, a directory person whose `identities.agUi` holds
   * it. The person who sends a message starts the run it begins
   * (`startedBy: { channel: "agUi", id }`), and each answer counts as
   * theirs (`answeredBy: { channel: "agUi", id }`), so a rule's roles and
   * self-approval are judged against the person signed in, never against
   * anything the request body claims.
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
