import { SecretRegistry } from "../../internal/redact.js";
import { describeThrown } from "../describe-thrown.js";
import type {
  AssistantModelMessage,
  FunctionModelMessage,
  ModelMessage,
  ModelToolCall,
  ToolModelMessage,
} from "../model-message.js";
import { asksLegacyFunctionCall, requestedToolCalls } from "../requested-tool-calls.js";
import type { RunUsage, ToolCallRecord } from "../run-result.js";
import { RunConflictError, RunStoreError } from "./durable-errors.js";
import { redactRunState } from "./redact-run-state.js";
import {
  type FinishedCallRecord,
  type FinishedCallStatus,
  type PendingToolCall,
  type RunState,
  type RunStateStatus,
  runStateFormat,
  runStateVersion,
} from "./run-state.js";
import type { RunClaim, RunStore } from "./run-store.js";
import { sealRunState } from "./seal-run-state.js";

/** Where a run starts from: nothing (a new run) or a saved state. */
export interface RunJournalOptions {
  /** The run's id; `undefined` for a run that is not durable (nothing is saved or returned). */
  runId: string | undefined;
  /** Receives every save; without one the state lives in memory and is returned at the end. */
  store: RunStore | undefined;
  maxSteps: number;
  messages: ModelMessage[];
  /** The claim this process holds on the run; every save is fenced by it. */
  claim?: RunClaim | undefined;
  /** The caller's labels of a new run (`RunOptions.metadata`). */
  metadata?: Record<string, string> | undefined;
  /** The agent's secrets, removed from every state saved or returned. */
  secrets?: SecretRegistry | undefined;
  /** Seals every state saved or returned (`AgentOptions.stateKey`). */
  stateKey?: string | undefined;
  /**
   * The agent's own record of used approvals (`<runId>\n<interactionId>`),
   * for durable runs whose store cannot record them.
   */
  agentUsedApprovals?: Set<string> | undefined;
  /** From a saved state; a new run starts empty. */
  resumeFrom?: Pick<
    RunState,
    | "createdAt"
    | "stepCount"
    | "usage"
    | "pendingCalls"
    | "revision"
    | "metadata"
    | "usedApprovals"
    | "finishedCalls"
  >;
}

/**
 * Everything one run must keep to go on in another process: the
 * conversation, step count, usage and the tool calls of the open step, each
 * with its phase. The loop appends to `messages` and `usage`; the journal
 * saves the redacted state to the store when it matters: before a
 * call of a tool that is not read-only starts, after it finishes, when an approval is pending,
 * at the end of each step and when the run ends. Saves are made one at a
 * time, each with the newest state.
 */
export class RunJournal {
  readonly runId: string | undefined;
  readonly messages: ModelMessage[];
  readonly usage: RunUsage;
  readonly maxSteps: number;
  /** Model calls made so far; the open step, when there is one, is the last. */
  stepCount: number;
  readonly #store: RunStore | undefined;
  /** Set once the run is claimed; saves carry it so a store can refuse a stale holder's. */
  claim: RunClaim | undefined;
  readonly #createdAt: string;
  readonly #metadata: Record<string, string> | undefined;
  readonly #secrets: SecretRegistry;
  readonly #stateKey: string | undefined;
  readonly #agentUsedApprovals: Set<string> | undefined;
  /** The interactions whose approval let a call of this run run, kept in its state. */
  readonly #usedApprovals: Set<string>;
  /** Every call that ended, oldest first, with its approval (`RunState.finishedCalls`). */
  readonly #finishedCalls: FinishedCallRecord[];
  /** Saves made to the store so far, this run's and earlier processes'. */
  #revision: number;
  /** The open step's calls, by id, in the order the model asked for them. */
  #calls = new Map<string, PendingToolCall>();
  #status: RunStateStatus = "running";
  #queue: Promise<unknown> = Promise.resolve();
  #storeError: RunStoreError | undefined;
  #error: Error | undefined;

  constructor(options: RunJournalOptions) {
    this.runId = options.runId;
    this.#store = options.runId === undefined ? undefined : options.store;
    this.maxSteps = options.maxSteps;
    this.messages = options.messages;
    this.#secrets = options.secrets ?? new SecretRegistry();
    this.#stateKey = options.stateKey;
    this.#agentUsedApprovals = options.agentUsedApprovals;
    const from = options.resumeFrom;
    this.#usedApprovals = new Set(from?.usedApprovals ?? []);
    this.#finishedCalls = [...(from?.finishedCalls ?? [])];
    this.#createdAt = from?.createdAt ?? new Date().toISOString();
    this.#revision = from?.revision ?? 0;
    this.claim = options.claim;
    const metadata = from ? from.metadata : options.metadata;
    this.#metadata = metadata ? { ...metadata } : undefined;
    this.stepCount = from?.stepCount ?? 0;
    this.usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, ...from?.usage };
    for (const call of from?.pendingCalls ?? []) this.#calls.set(call.toolCallId, { ...call });
  }

  /** True when the run is durable: it has an id and its state is kept. */
  get durable(): boolean {
    return this.runId !== undefined;
  }

  /** True when the run's state goes to a store as it changes. */
  get persistent(): boolean {
    return this.#store !== undefined;
  }

  /** The first save that failed, if any; the run must stop, as later saves may fail too. */
  get storeError(): RunStoreError | undefined {
    return this.#storeError;
  }

  /** True while some tool call of the last step has no tool message yet. */
  get hasOpenStep(): boolean {
    return this.#calls.size > 0;
  }

  /** The open step's record of one call. */
  pendingCall(toolCallId: string): PendingToolCall | undefined {
    return this.#calls.get(toolCallId);
  }

  /** Starts a step: every call the model asked for is `requested`. */
  openStep(message: AssistantModelMessage): void {
    this.#calls = new Map(
      requestedToolCalls(message).map((call) => [
        call.id,
        {
          toolCallId: call.id,
          toolName: call.function.name,
          rawArguments: call.function.arguments,
          phase: "requested",
        },
      ]),
    );
  }

  /** The open step's assistant message and the calls in it that are not finished. */
  unfinishedCalls(): { message: AssistantModelMessage; calls: ModelToolCall[] } | undefined {
    const message = this.messages.at(-1);
    if (!this.hasOpenStep || message?.role !== "assistant") return undefined;
    const calls = requestedToolCalls(message).filter(
      (call) => this.#calls.get(call.id)?.phase !== "finished",
    );
    return { message, calls };
  }

  /**
   * Records that the approval given in an interaction lets its call run, and
   * says whether this is its first use (`false`: refuse the call as
   * `already_used`). The one home of "an approval runs its action once", with
   * the store: the run's state keeps the approvals it used (so deleting the
   * store's records does not free them), and the store's `markApprovalUsed`
   * records each use for good (so an older copy of the state put back does
   * not either). A durable run whose store cannot record uses falls back on
   * the agent's own record; a run without an id on its own list.
   */
  async markApprovalUsed(interactionId: string, fingerprint: string): Promise<boolean> {
    if (this.#usedApprovals.has(interactionId)) return false;
    const store = this.#store;
    let firstUse = true;
    if (store) {
      firstUse = (await store.markApprovalUsed(interactionId, fingerprint)) === true;
    } else if (this.runId !== undefined && this.#agentUsedApprovals) {
      const key = `${this.runId}\n${interactionId}`;
      firstUse = !this.#agentUsedApprovals.has(key);
      this.#agentUsedApprovals.add(key);
    }
    if (firstUse) this.#usedApprovals.add(interactionId);
    return firstUse;
  }

  /**
   * Records, and saves when the store is set, that a call of a tool that is
   * not read-only is about to run. Resolves with the save's error when it
   * failed: the call must then not run, since a crash could no longer be
   * told apart from a call that never started (the run then fails after the
   * step).
   */
  async markStarted(
    toolCallId: string,
    starting: { fingerprint: string | undefined; arguments: unknown },
  ): Promise<RunStoreError | undefined> {
    const call = this.#calls.get(toolCallId);
    if (!call || !this.durable) return undefined;
    const previous = { ...call };
    Object.assign(call, {
      phase: "started",
      arguments: starting.arguments,
      ...(starting.fingerprint !== undefined ? { fingerprint: starting.fingerprint } : {}),
    });
    try {
      await this.#persist();
    } catch (error) {
      this.#calls.set(toolCallId, previous);
      this.#storeError ??= error as RunStoreError;
      return error as RunStoreError;
    }
    return this.#recordStart(toolCallId, starting.fingerprint);
  }

  /**
   * The store's execution record, when it keeps them: of two processes
   * starting the same call, one gets the record and the other a refusal (it
   * then stops the run; the call's outcome is unknown to it).
   */
  async #recordStart(
    toolCallId: string,
    fingerprint: string | undefined,
  ): Promise<RunStoreError | undefined> {
    const store = this.#store;
    const runId = this.runId;
    if (!store || runId === undefined) return undefined;
    let error: RunStoreError;
    try {
      if (await store.recordStart(runId, toolCallId, fingerprint ?? "")) return undefined;
      error = new RunConflictError({
        operation: "recordStart",
        runId,
        reason: "claim",
        message: `Call "${toolCallId}" of run "${runId}" was not run: the run store already holds a record that it started, made by another process. The run stops here; whoever holds the run goes on with it.`,
      });
    } catch (thrown) {
      error =
        thrown instanceof RunStoreError
          ? thrown
          : new RunStoreError(
              {
                operation: "recordStart",
                runId,
                message: `Could not record that call "${toolCallId}" of run "${runId}" starts: ${this.#secrets.redactText(describeThrown(thrown))}`,
              },
              { cause: thrown },
            );
    }
    this.#storeError ??= error;
    return error;
  }

  /**
   * Records how a call ended: its tool message, or, for a call awaiting an
   * approval, the interaction to read the answer from. Saves when the call
   * had started (its result closes the record) or awaits an answer (so a
   * crash does not ask again). A failed save is kept in `storeError`.
   */
  async recordOutcome(record: ToolCallRecord): Promise<void> {
    const call = this.#calls.get(record.toolCallId);
    if (!call) return;
    const wasStarted = call.phase === "started";
    if (record.status === "awaiting_approval") {
      Object.assign(call, {
        phase: "awaiting_approval",
        arguments: record.arguments,
        fingerprint: record.approval.fingerprint,
        interactionId: record.approval.interactionId,
      });
    } else {
      if (this.durable) this.#finishedCalls.push(finishedCallRecord(record, this.stepCount));
      Object.assign(call, {
        phase: "finished",
        status: record.status satisfies FinishedCallStatus,
        content: record.content,
        ...(record.arguments !== undefined ? { arguments: record.arguments } : {}),
        ...(record.approval ? { fingerprint: record.approval.fingerprint } : {}),
        ...(record.approval?.interactionId !== undefined
          ? { interactionId: record.approval.interactionId }
          : {}),
      });
    }
    if (!wasStarted && record.status !== "awaiting_approval") return;
    try {
      if (wasStarted && this.runId !== undefined && call.content !== undefined) {
        await this.#store?.recordFinish(
          this.runId,
          record.toolCallId,
          this.#secrets.redactText(call.content),
        );
      }
      await this.#persist();
    } catch (error) {
      this.#storeError ??= error as RunStoreError;
    }
  }

  /**
   * Ends the open step: its tool messages, in the order the model asked for
   * the calls. Call only when every call is finished.
   */
  closeStep(): Array<ToolModelMessage | FunctionModelMessage> {
    const asked = this.messages.at(-1);
    const legacy = asked?.role === "assistant" && asksLegacyFunctionCall(asked);
    const toolMessages = [...this.#calls.values()].map(
      (call): ToolModelMessage | FunctionModelMessage =>
        legacy
          ? { role: "function", name: call.toolName, content: call.content ?? "" }
          : { role: "tool", tool_call_id: call.toolCallId, content: call.content ?? "" },
    );
    this.#calls = new Map();
    return toolMessages;
  }

  /**
   * Saves the state with this status (when the run is durable and has a
   * store) and returns it. Rejects with `RunStoreError` when the save fails.
   */
  async save(status: RunStateStatus, error?: Error): Promise<RunState> {
    this.#status = status;
    this.#error = error;
    return this.#persist();
  }

  /** The state as it stands, redacted; the same shape `save` writes. */
  snapshot(): RunState {
    return this.#snapshotAt(this.#revision);
  }

  #snapshotAt(revision: number): RunState {
    const state = redactRunState(
      {
        format: runStateFormat,
        version: runStateVersion,
        runId: this.runId ?? "",
        revision,
        status: this.#status,
        ...(this.#metadata ? { metadata: { ...this.#metadata } } : {}),
        createdAt: this.#createdAt,
        updatedAt: new Date().toISOString(),
        maxSteps: this.maxSteps,
        stepCount: this.stepCount,
        usage: { ...this.usage },
        messages: this.messages,
        pendingCalls: [...this.#calls.values()],
        ...(this.#error
          ? {
              error: {
                name: this.#error.name,
                message: this.#secrets.redactText(this.#error.message),
              },
            }
          : {}),
        ...(this.#usedApprovals.size > 0 ? { usedApprovals: [...this.#usedApprovals] } : {}),
        ...(this.#finishedCalls.length > 0 ? { finishedCalls: [...this.#finishedCalls] } : {}),
      },
      this.#secrets,
    );
    return this.#stateKey !== undefined && this.runId !== undefined
      ? sealRunState(state, this.#stateKey)
      : state;
  }

  #persist(): Promise<RunState> {
    const store = this.#store;
    const saving = this.#queue.then(async () => {
      if (!store) return this.snapshot();
      const state = this.#snapshotAt(this.#revision + 1);
      try {
        await store.save(state, { expectedRevision: this.#revision, claim: this.claim });
        this.#revision = state.revision;
      } catch (error) {
        throw error instanceof RunStoreError
          ? error
          : new RunStoreError(
              {
                operation: "save",
                runId: state.runId,
                message: `Could not save run "${state.runId}": ${this.#secrets.redactText(describeThrown(error))}`,
              },
              { cause: error },
            );
      }
      return state;
    });
    this.#queue = saving.catch(() => {});
    return saving;
  }
}

/** What the run keeps of a call that ended: its status, and the decision of its approval. */
function finishedCallRecord(
  record: Exclude<ToolCallRecord, { status: "awaiting_approval" }>,
  stepNumber: number,
): FinishedCallRecord {
  const approval = record.approval;
  return {
    toolCallId: record.toolCallId,
    toolName: record.toolName,
    stepNumber,
    status: record.status,
    ...(approval && approval.outcome !== "pending"
      ? {
          approval: {
            outcome: approval.outcome,
            fingerprint: approval.fingerprint,
            ...(approval.interactionId !== undefined
              ? { interactionId: approval.interactionId }
              : {}),
            ...(approval.outcome === "approved" && approval.approvedBy !== undefined
              ? { approvedBy: approval.approvedBy }
              : {}),
            ...(approval.outcome === "refused" ? { code: approval.code } : {}),
            ...(approval.outcome !== "expired" && approval.rule !== undefined
              ? { rule: approval.rule }
              : {}),
            decidedAt: new Date().toISOString(),
          },
        }
      : {}),
  };
}
