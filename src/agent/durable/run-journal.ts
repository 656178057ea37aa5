import { createHash, randomUUID } from "node:crypto";
import { isoTimestamp } from "../../internal/iso-timestamp.js";
import { SecretRegistry } from "../../internal/redact.js";
import { derivedApprovalId } from "../approval/approval-id.js";
import type { ApproverIdentity } from "../approval/approver-directory.js";
import {
  type StandingApproval,
  type StandingCoverage,
  type StandingScope,
  standingCovers,
} from "../approval/standing-approval.js";
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
import { runTaskOf } from "../run-task.js";
import { RunStoreError } from "./durable-errors.js";
import { redactMessages, redactRunState } from "./redact-run-state.js";
import type { RunClaim } from "./run-queue.js";
import {
  type FinishedCallRecord,
  type FinishedCallStatus,
  type OutcomeUnknownCall,
  outcomeUnknownCallsOf,
  type PendingToolCall,
  type RunBudgetState,
  type RunState,
  type RunStateStatus,
  runStateFormat,
  runStateVersion,
} from "./run-state.js";
import type { CallStart, CallStartOutcome, FinishedCall, RunStore } from "./run-store.js";
import { sealRunState } from "./seal-run-state.js";
import type { ClaimWatch } from "./watch-claim.js";

/** What {@link RunJournal.startCall} decided: only `started` lets the call run. */
export type CallStartDecision =
  | CallStartOutcome
  | {
      /** The start could not be recorded: the call does not run, its approval is unspent. */
      outcome: "not_recorded";
      error: RunStoreError;
    };

/** Marks the open step's call `started`, with the arguments and fingerprint it runs with. */
function markCallStarted(
  call: PendingToolCall,
  starting: { fingerprint: string | undefined; arguments: unknown },
): void {
  Object.assign(call, {
    phase: "started",
    arguments: starting.arguments,
    ...(starting.fingerprint !== undefined ? { fingerprint: starting.fingerprint } : {}),
  });
}

/** Where a run starts from: nothing (a new run) or a saved state. */
export interface RunJournalOptions {
  /** The run's id. */
  runId: string;
  /** Receives every call's start and the saves of the run (the agent's `runStore`, or its in-memory one). */
  store: RunStore;
  /**
   * The store keeps its states in this process only, for the run's own use
   * (the agent's own `InMemoryRunStore`): no state of it leaves the process
   * but the one the run ends with. The journal then writes to it only what
   * is read back there: the state of a suspended run; every approval spent
   * (in a start write, with the working state, not redacted: it never
   * leaves the process); and, for a run that went on from a state, each
   * call's start and end (see {@link RunJournal.matchesStartsByContent}).
   * @default false
   */
  inProcess?: boolean | undefined;
  /**
   * With `inProcess`: `save` builds the state the run ends with even so,
   * for the result (a run started with `suspendOnApproval` or a `runId`, or
   * resumed: one the caller means to keep). Building it is most of a short
   * run's own cost, so other runs of such a store end without one.
   * @default false
   */
  endState?: boolean | undefined;
  maxSteps: number;
  messages: ModelMessage[];
  /** The claim this process holds on the run; every save is fenced by it. */
  claim?: RunClaim | undefined;
  /** The caller's labels of a new run (`RunOptions.metadata`). */
  metadata?: Record<string, string> | undefined;
  /** Who started a new run (`RunOptions.startedBy`). */
  startedBy?: string | ApproverIdentity | undefined;
  /** The run's budget and what it spent, kept in every state saved. */
  budget?: RunBudgetState | undefined;
  /** The agent's secrets, removed from every state saved or returned. */
  secrets?: SecretRegistry | undefined;
  /** Seals every state saved or returned (`AgentOptions.stateKey`). */
  stateKey?: string | undefined;
  /** From a saved state; a new run starts empty. */
  resumeFrom?: Pick<
    RunState,
    | "createdAt"
    | "stepCount"
    | "usage"
    | "pendingCalls"
    | "revision"
    | "metadata"
    | "startedBy"
    | "usedApprovals"
    | "finishedCalls"
    | "standingApprovals"
    | "deniedActions"
    | "approvalIdSeed"
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
  readonly runId: string;
  readonly messages: ModelMessage[];
  readonly usage: RunUsage;
  readonly maxSteps: number;
  /** The run's budget; the loop counts into it, and every save keeps it. */
  readonly budget: RunBudgetState | undefined;
  /** Model calls made so far; the open step, when there is one, is the last. */
  stepCount: number;
  readonly #store: RunStore;
  /** See {@link RunJournalOptions.inProcess}. */
  readonly #inProcess: boolean;
  /** See {@link RunJournalOptions.endState}. */
  readonly #endState: boolean;
  /** Set once the run is claimed; saves carry it so a store can refuse a stale holder's. */
  claim: RunClaim | undefined;
  /** Watches `claim` while the run goes on: once it lapsed, nothing more is started or saved. */
  claimWatch: ClaimWatch | undefined;
  readonly #createdAt: string;
  readonly #metadata: Record<string, string> | undefined;
  /** Who started the run (`RunState.startedBy`), kept from the state on resume. */
  readonly startedBy: string | ApproverIdentity | undefined;
  readonly #secrets: SecretRegistry;
  /** {@link task}, once read (`null` until then). */
  #task: string | undefined | null = null;
  readonly #stateKey: string | undefined;
  /** The approvals (by id) that let a call of this run run, kept in its state. */
  readonly #usedApprovals: Set<string>;
  /** Every call that ended, oldest first, with its approval (`RunState.finishedCalls`). */
  readonly #finishedCalls: FinishedCallRecord[];
  /** The standing approvals given in this run and their uses (`RunState.standingApprovals`). */
  readonly #standingApprovals: StandingApproval[];
  /** Fingerprints of the actions a person denied in this run (`RunState.deniedActions`). */
  readonly #deniedActions: Set<string>;
  /**
   * `RunState.approvalIdSeed`: kept from the state, or drawn for a run that
   * has none when first needed (an approval id, a snapshot): most runs in
   * memory ask no approval and are never saved.
   */
  #approvalIdSeed: string | undefined;
  /** Saves made to the store so far, this run's and earlier processes'. */
  #revision: number;
  /** The revision the run went on from (0: a new run, or a state never stored). */
  readonly #resumedRevision: number;
  /** True once the store holds something of the run: it went on from a state there, or a write took effect. */
  #stored: boolean;
  /** The open step's calls, by id, in the order the model asked for them. */
  #calls = new Map<string, PendingToolCall>();
  #status: RunStateStatus = "running";
  #queue: Promise<unknown> = Promise.resolve();
  #storeError: RunStoreError | undefined;
  #error: Error | undefined;
  /** Each message of the conversation redacted, with the secrets it was redacted with. */
  #redacted: WeakMap<ModelMessage, ModelMessage> | undefined;
  #redactedWith: string | undefined;
  /** What the last save that took effect held. */
  #lastSaved: SavedShape | undefined;
  /**
   * Set when the step closed right after a save of it with every call
   * ended: the conversation as the loop will hold it once the step's tool
   * messages are added, which the store then holds in substance.
   */
  #closedAfterSave: { messages: number; stepCount: number; usageAndBudget: string } | undefined;

  constructor(options: RunJournalOptions) {
    this.runId = options.runId;
    this.#store = options.store;
    this.#inProcess = options.inProcess === true;
    this.#endState = options.endState === true;
    this.maxSteps = options.maxSteps;
    this.budget = options.budget;
    this.messages = options.messages;
    this.#secrets = options.secrets ?? new SecretRegistry();
    this.#stateKey = options.stateKey;
    const from = options.resumeFrom;
    this.#usedApprovals = new Set(from?.usedApprovals ?? []);
    this.#finishedCalls = [...(from?.finishedCalls ?? [])];
    this.#standingApprovals = from ? structuredClone(from.standingApprovals ?? []) : [];
    this.#deniedActions = new Set(from?.deniedActions ?? []);
    this.#approvalIdSeed = from?.approvalIdSeed;
    this.#createdAt = from?.createdAt ?? isoTimestamp();
    this.#revision = from?.revision ?? 0;
    this.#resumedRevision = this.#revision;
    this.#stored = this.#revision > 0;
    this.claim = options.claim;
    const metadata = from ? from.metadata : options.metadata;
    this.#metadata = metadata ? { ...metadata } : undefined;
    const startedBy = from ? from.startedBy : options.startedBy;
    this.startedBy = typeof startedBy === "object" ? { ...startedBy } : startedBy;
    this.stepCount = from?.stepCount ?? 0;
    this.usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, ...from?.usage };
    for (const call of from?.pendingCalls ?? []) this.#calls.set(call.toolCallId, { ...call });
  }

  /**
   * The run's task for the people asked about its calls: the user message
   * it answers (its last, not its first: a thread's turn), cut to 200
   * characters, the agent's secrets removed; `undefined` when the
   * conversation has none. See {@link runTaskOf}.
   */
  get task(): string | undefined {
    // Read once: the run adds no message a person sent, and every question asks for it.
    if (this.#task === null) this.#task = runTaskOf(this.messages, this.#secrets);
    return this.#task;
  }

  /** True when the run goes on from a state its store holds (a resumed run). */
  get resumed(): boolean {
    return this.#resumedRevision > 0;
  }

  /** True once the store holds something of the run (its state, a call's start). */
  get stored(): boolean {
    return this.#stored;
  }

  /**
   * True when a call's start record may be read back by its content (a step
   * asked of the model again): the store outlives this process's run (any
   * store but one in this process), or the run went on from a state, a copy
   * of which could be resumed again. A new run in a store in this process
   * gave out no state its calls could run again from: its starts spend
   * approvals and are recorded by id, and need no fingerprint of the call.
   */
  get matchesStartsByContent(): boolean {
    return !this.#inProcess || this.resumed;
  }

  /**
   * True once this process's claim on the run lapsed (read from the clock
   * now): it is no longer the run's holder, so it starts no call, sends no
   * request and saves nothing more.
   */
  claimLapsed(): boolean {
    return this.claimWatch?.lapsed() ?? false;
  }

  /** Throws the lapse (a RunConflictError) once the claim lapsed. */
  #refuseIfLapsed(): void {
    if (this.claimLapsed()) throw this.claimWatch?.signal.reason;
  }

  /** The first save that failed, if any; the run must stop, as later saves may fail too. */
  get storeError(): RunStoreError | undefined {
    return this.#storeError;
  }

  /** True while some tool call of the last step has no tool message yet. */
  get hasOpenStep(): boolean {
    return this.#calls.size > 0;
  }

  /** The calls of the run (this process's and earlier ones') whose outcome is unknown. */
  outcomeUnknownCalls(): OutcomeUnknownCall[] {
    return outcomeUnknownCallsOf(this.#finishedCalls);
  }

  /**
   * Takes one use of a standing approval of this run that covers the call
   * (see `standingCovers`), or none: never for an action a person denied in
   * this run. The use is counted at once, so parallel calls never share
   * one; it is spent, as an approval is, when the call starts.
   */
  takeStandingUse(
    call: Parameters<typeof standingCovers>[1] & { fingerprint: string },
    now: Date,
  ): StandingCoverage | undefined {
    if (this.#deniedActions.has(call.fingerprint)) return undefined;
    const approval = this.#standingApprovals.find((candidate) =>
      standingCovers(candidate, call, now),
    );
    if (!approval) return undefined;
    approval.used += 1;
    return {
      approvalId: approval.approvalId,
      use: approval.used,
      maxCalls: approval.scope.maxCalls,
      scope: approval.scope.fingerprint,
    };
  }

  /**
   * A person denied an action of `toolName`: no standing approval of that
   * tool covers anything more in this run, and the action itself is never
   * run by one. True when something changed.
   */
  #noteDenial(toolName: string, fingerprint: string): boolean {
    const before = this.#deniedActions.size;
    if (fingerprint !== "") this.#deniedActions.add(fingerprint);
    let changed = this.#deniedActions.size !== before;
    for (const approval of this.#standingApprovals) {
      if (approval.scope.toolName !== toolName || approval.revoked !== undefined) continue;
      approval.revoked = `a person denied a call of ${toolName} later in the run`;
      changed = true;
    }
    return changed;
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
   * The run's approval-id seed, drawn once: 122 random bits from a pool of
   * entropy (`randomBytes` would ask the system for them each time).
   */
  #seed(): string {
    this.#approvalIdSeed ??= randomUUID();
    return this.#approvalIdSeed;
  }

  /**
   * The one home of "an approval runs its action once" and "a call that may
   * change something runs at most once": marks the call `started` and spends
   * its approval in one write, the store's `startCall` (fenced by the claim
   * that holds the run; the agent's in-memory store when it was given none).
   * Only `started` lets the call run. A worker that
   * dies before this write leaves the approval unspent for the next owner of
   * the run; after it, the call is finished or of unknown outcome.
   * `already_used`: the approval was spent by another run or call, or this
   * state is an older copy. `already_started`: the run started this call
   * before, under this id or, asked of the model again, another.
   * `not_recorded`: the write failed (the run then stops), nothing spent.
   */
  async startCall(
    toolCallId: string,
    starting: {
      fingerprint: string | undefined;
      arguments: unknown;
      /** The id of the approval the call spends, when it needed one. */
      approval?: string;
      /** The approval also grants this standing approval, kept in the same write. */
      grants?: StandingScope;
    },
  ): Promise<CallStartDecision> {
    const call = this.#calls.get(toolCallId);
    const { approval } = starting;
    const granted: StandingApproval | undefined =
      approval && starting.grants
        ? {
            approvalId: approval,
            scope: structuredClone(starting.grants),
            used: 0,
            grantedAt: new Date().toISOString(),
          }
        : undefined;
    if (approval && this.#usedApprovals.has(approval)) {
      return { outcome: "already_used" };
    }
    const start: CallStart = {
      toolCallId,
      fingerprint: starting.fingerprint ?? "",
      contentKey: this.matchesStartsByContent
        ? this.#contentKey(toolCallId, starting.fingerprint)
        : `call\n${toolCallId}`,
      ...(approval ? { approval } : {}),
    };
    const store = this.#store;
    const runId = this.runId;
    if (!call) {
      const message = `Call "${toolCallId}" is not a call of run "${runId}"'s open step; its start is not recorded.`;
      return {
        outcome: "not_recorded",
        error: new RunStoreError({ operation: "startCall", runId, message }),
      };
    }
    if (!approval && !this.matchesStartsByContent) {
      // Nothing would read this record back: the run gave out no state a
      // copy of could start the call again (see matchesStartsByContent), and
      // the call spends no approval. It is started in the run's state alone.
      markCallStarted(call, starting);
      return { outcome: "started" };
    }
    const writing = this.#queue.then(async () => {
      this.#refuseIfLapsed();
      // Changed only here, inside the queue, so no other save writes the call
      // started without this write's approval record.
      const previous = { ...call };
      markCallStarted(call, starting);
      if (approval) this.#usedApprovals.add(approval);
      if (granted) this.#standingApprovals.push(granted);
      const undo = () => {
        this.#calls.set(toolCallId, previous);
        if (approval) this.#usedApprovals.delete(approval);
        if (granted) this.#standingApprovals.splice(this.#standingApprovals.indexOf(granted), 1);
      };
      try {
        const state = this.#startStateAt(this.#revision + 1);
        const decided = await store.startCall(state, start, {
          expectedRevision: this.#revision,
          claim: this.claim,
        });
        if (decided.outcome === "started") {
          this.#revision = state.revision;
          this.#stored = true;
        } else undo();
        return decided;
      } catch (error) {
        undo();
        throw error;
      }
    });
    this.#queue = writing.catch(() => {});
    try {
      return await writing;
    } catch (thrown) {
      const error =
        thrown instanceof RunStoreError
          ? thrown
          : new RunStoreError(
              {
                operation: "startCall",
                runId,
                message: `Could not record that call "${toolCallId}" of run "${runId}" starts: ${this.#secrets.redactText(describeThrown(thrown))}`,
              },
              { cause: thrown },
            );
      this.#storeError ??= error;
      return { outcome: "not_recorded", error };
    }
  }

  /**
   * The call by its content within the run: the step, its fingerprint (or
   * raw arguments) and its rank among the step's calls with the same tool
   * and arguments. The same call asked again under a new id has the same key.
   */
  #contentKey(toolCallId: string, fingerprint: string | undefined): string {
    const call = this.#calls.get(toolCallId);
    const same = [...this.#calls.values()].filter(
      (other) => other.toolName === call?.toolName && other.rawArguments === call?.rawArguments,
    );
    const rank = Math.max(
      0,
      same.findIndex((other) => other.toolCallId === toolCallId),
    );
    return createHash("sha256")
      .update(
        JSON.stringify([
          this.stepCount,
          call?.toolName ?? "",
          fingerprint ?? call?.rawArguments ?? "",
          rank,
        ]),
      )
      .digest("hex");
  }

  /**
   * The approval id of a new question about this call: derived from the
   * run's seed and the call's content, so the same call asked again in a
   * step resumed after a crash (before the question was saved) is the same
   * approval, and its question the same message.
   */
  approvalIdFor(toolCallId: string, fingerprint: string | undefined): string {
    return derivedApprovalId(this.runId, this.#seed(), this.#contentKey(toolCallId, fingerprint));
  }

  /**
   * The `Idempotency-Key` a write of this call sends (`ToolContext.idempotencyKey`):
   * from the run, the step and the call's content, so the same call asked
   * again in a resumed step carries the same key and the service does not
   * write twice.
   */
  idempotencyKey(toolCallId: string, fingerprint: string | undefined): string {
    const digest = createHash("sha256")
      .update(`${this.runId}\n${this.#contentKey(toolCallId, fingerprint)}`)
      .digest("hex");
    return `switchyard-${digest.slice(0, 40)}`;
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
    const deniedByPerson =
      record.approval?.outcome === "refused" &&
      record.approval.code === "denied" &&
      this.#noteDenial(record.toolName, record.approval.fingerprint);
    if (record.status === "awaiting_approval") {
      Object.assign(call, {
        phase: "awaiting_approval",
        arguments: record.arguments,
        fingerprint: record.approval.fingerprint,
        approvalId: record.approval.approvalId,
        ticket: record.approval.ticket,
        ...(record.approval.interactionId !== undefined
          ? { interactionId: record.approval.interactionId }
          : {}),
        ...(record.approval.standing
          ? { standing: structuredClone(record.approval.standing) }
          : {}),
      });
    } else {
      this.#finishedCalls.push(finishedCallRecord(record, this.stepCount));
      Object.assign(call, {
        phase: "finished",
        status: record.status satisfies FinishedCallStatus,
        content: record.content,
        ...(record.arguments !== undefined ? { arguments: record.arguments } : {}),
        ...(record.approval ? { fingerprint: record.approval.fingerprint } : {}),
        ...(record.approval?.approvalId !== undefined
          ? { approvalId: record.approval.approvalId }
          : {}),
      });
    }
    if (!wasStarted && record.status !== "awaiting_approval" && !deniedByPerson) return;
    if (this.#inProcess) {
      // Only the start record is read back in this process, and only when
      // matched by content; the state is saved if the run suspends.
      if (wasStarted && call.content !== undefined && this.matchesStartsByContent) {
        await this.#recordFinish(record.toolCallId, this.#secrets.redactText(call.content));
      }
      return;
    }
    try {
      // The call's end is recorded by the same write as the state.
      await this.#persist({
        finishedCall:
          wasStarted && call.content !== undefined
            ? { toolCallId: record.toolCallId, content: this.#secrets.redactText(call.content) }
            : undefined,
      });
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
    const saved = this.#lastSaved;
    this.#closedAfterSave =
      saved?.allCallsEnded === true &&
      saved.messages === this.messages.length &&
      saved.stepCount === this.stepCount
        ? {
            messages: this.messages.length + toolMessages.length,
            stepCount: this.stepCount,
            usageAndBudget: saved.usageAndBudget,
          }
        : undefined;
    this.#calls = new Map();
    return toolMessages;
  }

  /** What a save being made holds, to tell later whether the store holds everything. */
  #savedShape(): SavedShape {
    const calls = [...this.#calls.values()];
    return {
      messages: this.messages.length,
      stepCount: this.stepCount,
      usageAndBudget: this.#usageAndBudget(),
      allCallsEnded: calls.length > 0 && calls.every((call) => call.phase === "finished"),
    };
  }

  /**
   * Saves the state with this status and returns it; rejects with
   * `RunStoreError` when the save fails. A store in this process keeps
   * only a suspended run's state (nothing reads back a running or ended
   * one there): other saves return the state only with `endState` when
   * the run ended, else `undefined`.
   */
  async save(status: RunStateStatus, error?: Error): Promise<RunState | undefined> {
    this.#status = status;
    this.#error = error;
    if (this.#inProcess && status !== "suspended") {
      return this.#endState && status !== "running" ? this.snapshot() : undefined;
    }
    // A run that ended lets its claim go with its last save (one write).
    return this.#persist({ release: status !== "running" && status !== "suspended" });
  }

  /**
   * Saves a running run between steps (not into a store in this process), unless the store already holds all
   * of it: the step just closed was saved with every call ended, and
   * nothing was added since (a resume from that state closes the step the
   * same way). Rejects with `RunStoreError` when the save fails.
   */
  async saveBetweenSteps(): Promise<void> {
    if (this.#inProcess) return;
    const closed = this.#closedAfterSave;
    if (
      closed !== undefined &&
      this.#status === "running" &&
      this.#error === undefined &&
      this.messages.length === closed.messages &&
      this.stepCount === closed.stepCount &&
      this.#usageAndBudget() === closed.usageAndBudget
    ) {
      return;
    }
    await this.save("running");
  }

  /** What the loop may change between saves besides messages and steps, as one string. */
  #usageAndBudget(): string {
    return JSON.stringify([this.usage, this.budget]);
  }

  /**
   * Records a started call's end in the store; a failure is kept in
   * `storeError` (the call ran: its start record stays, of unknown outcome).
   */
  async #recordFinish(toolCallId: string, content: string): Promise<void> {
    try {
      await this.#store.recordFinish(this.runId, toolCallId, content);
    } catch (thrown) {
      this.#storeError ??=
        thrown instanceof RunStoreError
          ? thrown
          : new RunStoreError(
              {
                operation: "recordFinish",
                runId: this.runId,
                message: `Could not record that call "${toolCallId}" of run "${this.runId}" finished: ${this.#secrets.redactText(describeThrown(thrown))}`,
              },
              { cause: thrown },
            );
    }
  }

  /**
   * The state a call's start writes: redacted and sealed, as every save;
   * for a store in this process (and no `stateKey`, whose store refuses an
   * unsealed state) the working state as it stands, which no one outside
   * the process reads: redacting the whole state at each call's start is
   * most of a short run's cost.
   */
  #startStateAt(revision: number): RunState {
    if (!this.#inProcess || this.#stateKey !== undefined) return this.#snapshotAt(revision);
    return {
      format: runStateFormat,
      version: runStateVersion,
      runId: this.runId,
      revision,
      status: this.#status,
      ...(this.#metadata ? { metadata: this.#metadata } : {}),
      ...(this.startedBy !== undefined ? { startedBy: this.startedBy } : {}),
      createdAt: this.#createdAt,
      updatedAt: new Date().toISOString(),
      maxSteps: this.maxSteps,
      stepCount: this.stepCount,
      usage: { ...this.usage },
      ...(this.budget ? { budget: this.budget } : {}),
      messages: [...this.messages],
      pendingCalls: [...this.#calls.values()],
      ...(this.#usedApprovals.size > 0 ? { usedApprovals: [...this.#usedApprovals] } : {}),
      ...(this.#finishedCalls.length > 0 ? { finishedCalls: [...this.#finishedCalls] } : {}),
      ...(this.#standingApprovals.length > 0 ? { standingApprovals: this.#standingApprovals } : {}),
      ...(this.#deniedActions.size > 0 ? { deniedActions: [...this.#deniedActions] } : {}),
      approvalIdSeed: this.#seed(),
    };
  }

  /** The state as it stands, redacted; the same shape `save` writes. */
  snapshot(): RunState {
    return this.#snapshotAt(this.#revision);
  }

  /**
   * The conversation with the agent's secrets removed, each message redacted
   * once: messages are never changed once in the conversation, and every
   * save would otherwise redact the whole of it again. Redacted again when
   * the secrets known change.
   */
  #redactedMessages(): ModelMessage[] {
    const known = this.#secrets.values();
    const knownKey = known.join("\u0000");
    // Made at the first snapshot: a weak map per run is dear to the garbage
    // collector, and most runs of an agent without a store take none.
    if (!this.#redacted || knownKey !== this.#redactedWith) {
      this.#redacted = new WeakMap();
      this.#redactedWith = knownKey;
    }
    const redactedOf = this.#redacted;
    return this.messages.map((message) => {
      let redacted = redactedOf.get(message);
      if (!redacted) {
        redacted = redactMessages([message], known)[0] as ModelMessage;
        redactedOf.set(message, redacted);
      }
      return redacted;
    });
  }

  #snapshotAt(revision: number): RunState {
    const state = redactRunState(
      {
        format: runStateFormat,
        version: runStateVersion,
        runId: this.runId,
        revision,
        status: this.#status,
        ...(this.#metadata ? { metadata: { ...this.#metadata } } : {}),
        ...(this.startedBy !== undefined ? { startedBy: structuredClone(this.startedBy) } : {}),
        createdAt: this.#createdAt,
        updatedAt: new Date().toISOString(),
        maxSteps: this.maxSteps,
        stepCount: this.stepCount,
        usage: { ...this.usage },
        ...(this.budget ? { budget: structuredClone(this.budget) } : {}),
        messages: [],
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
        ...(this.#standingApprovals.length > 0
          ? { standingApprovals: structuredClone(this.#standingApprovals) }
          : {}),
        ...(this.#deniedActions.size > 0 ? { deniedActions: [...this.#deniedActions] } : {}),
        approvalIdSeed: this.#seed(),
      },
      this.#secrets,
    );
    state.messages = this.#redactedMessages();
    return this.#stateKey !== undefined ? sealRunState(state, this.#stateKey) : state;
  }

  #persist(
    options: { finishedCall?: FinishedCall | undefined; release?: boolean } = {},
  ): Promise<RunState> {
    const store = this.#store;
    const saving = this.#queue.then(async () => {
      this.#refuseIfLapsed();
      const state = this.#snapshotAt(this.#revision + 1);
      const saved = this.#savedShape();
      try {
        await store.save(state, {
          expectedRevision: this.#revision,
          claim: this.claim,
          ...(options.finishedCall ? { finishedCall: options.finishedCall } : {}),
          ...(options.release && this.claim ? { release: true } : {}),
        });
        this.#revision = state.revision;
        this.#stored = true;
        this.#lastSaved = saved;
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

/** What one save held, as far as telling whether a later save would add anything. */
interface SavedShape {
  messages: number;
  stepCount: number;
  usageAndBudget: string;
  /** The open step had calls, every one ended. */
  allCallsEnded: boolean;
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
            ...(approval.approvalId !== undefined ? { approvalId: approval.approvalId } : {}),
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
            ...(approval.outcome === "approved" && approval.coveredBy !== undefined
              ? { coveredBy: { ...approval.coveredBy } }
              : {}),
            ...(approval.outcome === "approved" && approval.standing !== undefined
              ? { standing: approval.standing.fingerprint }
              : {}),
            ...(approval.outcome !== "expired" && approval.people !== undefined
              ? { people: structuredClone(approval.people) }
              : {}),
            decidedAt: new Date().toISOString(),
          },
        }
      : {}),
  };
}
