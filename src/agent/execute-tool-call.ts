import type { Logger } from "pino";
import { AbortedError } from "../errors/transport-errors.js";
import type { RequestSlots } from "../internal/http/request-slots.js";
import { LazyAbortController } from "../internal/lazy-abort-controller.js";
import { redactedMarker, redactText, type SecretRegistry } from "../internal/redact.js";
import type { AnyTool, ToolContext } from "../tools/tool.js";
import type { AgentEventSink } from "./agent-events.js";
import {
  type ApprovalAuditSinks,
  recordApprovalDecision,
} from "./approval/approval-audit-record.js";
import type { ApprovalExpiryAction } from "./approval/approval-expiry.js";
import {
  type ApprovalPolicy,
  decideByPolicy,
  logPolicyDecision,
  mayBeGated,
  policyRefusal,
} from "./approval/approval-policy.js";
import { checkApprovedEdit } from "./approval/approved-edit.js";
import { fingerprintOf, sameFingerprint } from "./approval/fingerprint-check.js";
import { type StandingScope, sameValueOf, standingScopeFor } from "./approval/standing-approval.js";
import type { StepQuestionSeat } from "./approval/step-question.js";
import {
  type ApprovalRecord,
  type ApprovedRecord,
  passApprovalGate,
  type RefusedRecord,
} from "./approval-gate.js";
import { type Approver, interactionServiceOf } from "./approver.js";
import { buildApprovalAction } from "./build-approval-action.js";
import { describeThrown } from "./describe-thrown.js";
import { argumentsNotKeptMessage } from "./durable/arguments-not-kept-message.js";
import { outcomeUnknownMessage } from "./durable/outcome-unknown-message.js";
import { reconcileStartedCall } from "./durable/reconcile-started-call.js";
import { holdsSecret } from "./durable/redact-run-state.js";
import type { RunJournal } from "./durable/run-journal.js";
import type { PendingToolCall } from "./durable/run-state.js";
import { InvalidToolInputError, ToolExecutionError, ToolTimeoutError } from "./errors.js";
import { type FrozenArguments, freezeArguments } from "./freeze-arguments.js";
import type { ModelToolCall } from "./model-message.js";
import { neverAborted, signalForCallee } from "./never-aborted.js";
import type { ToolCallRecord, ToolCallRecordBase } from "./run-result.js";
import { serializeToolResult } from "./serialize-tool-result.js";
import { toolMessages } from "./tool-messages.js";

/** What running the tool calls of one step needs from the agent and the run. */
export interface ToolCallEnvironment {
  tools: ReadonlyMap<string, AnyTool>;
  approver: Approver | undefined;
  /** The agent's policy: decides, before anyone is asked, whether a call runs, is refused or asks. */
  approvalPolicy: ApprovalPolicy;
  /** What happens when nobody answers a question before it expires. */
  onApprovalExpired: ApprovalExpiryAction;
  /** Where each decision's audit record goes (the agent's `auditLog` and `onApprovalDecided`). */
  audit: ApprovalAuditSinks;
  /** The run's signal (or the step's, which follows it); {@link neverAborted} when the caller gave none. */
  signal: AbortSignal;
  logger: Logger;
  toolTimeoutMs: number;
  toolConcurrency: number;
  stepNumber: number;
  emit: AgentEventSink;
  /** The run's record: phases of the open step's calls, saved before destructive calls start. */
  journal: RunJournal;
  /** Ask the approver with `allowPending`; a pending answer leaves the call `awaiting_approval`. */
  suspendOnApproval: boolean;
  /** The agent's callback for each settled call. */
  onToolCallSettled?:
    | ((record: ToolCallRecord, context: { stepNumber: number }) => void | Promise<void>)
    | undefined;
  /** Every secret the agent knows of. */
  secrets: SecretRegistry;
  /** Longest tool message sent to the model. */
  maxToolResultChars: number;
  /** This call's place in its step's one question, when the step's gated calls are asked together. */
  stepQuestion?: StepQuestionSeat | undefined;
  /** The step's tool runs, at most `toolConcurrency` at once, when its calls are asked together. */
  toolSlots?: RequestSlots | undefined;
}

/**
 * Runs one tool call the model asked for and never throws: an unknown tool,
 * arguments that are not JSON or fail the schema, a refused approval, a tool
 * that throws or times out, and an abort each become a record whose `content`
 * tells the model what happened.
 *
 * A call that needs approval runs with a frozen copy of its arguments,
 * checked against the approved fingerprint just before it runs.
 *
 * In a resumed run the journal says how far the call got: a call that had
 * `started` is never run again (`reconciled` through its tool's
 * `reconcile` when it has one, otherwise `outcome_unknown`), and a call
 * `awaiting_approval` has its earlier question's answer read, not asked again.
 */
export async function executeToolCall(
  call: ModelToolCall,
  environment: ToolCallEnvironment,
): Promise<ToolCallRecord> {
  const base: ToolCallRecordBase = {
    toolCallId: call.id,
    toolName: call.function.name,
    rawArguments: call.function.arguments,
    content: "",
  };
  const prior = environment.journal.pendingCall(call.id);
  if (prior?.phase === "started") {
    return (
      (await reconcileStartedCall(base, prior, environment)) ??
      outcomeUnknown(base, prior, environment)
    );
  }
  if (prior?.phase === "requested" && call.function.arguments.includes(redactedMarker)) {
    return argumentsNotKept(base);
  }
  try {
    return await checkApproveAndRun(call, base, environment, prior);
  } catch (error) {
    // A tool's own checkArguments, needsApproval or describeAction misbehaved.
    const name = call.function.name;
    return {
      ...base,
      status: "failed",
      error: new ToolExecutionError({ toolName: name, toolCallId: call.id }, { cause: error }),
      content: toolMessages.failed(name, redactText(describeThrown(error))),
    };
  } finally {
    environment.stepQuestion?.leave();
  }
}

async function checkApproveAndRun(
  call: ModelToolCall,
  base: ToolCallRecordBase,
  environment: ToolCallEnvironment,
  prior: PendingToolCall | undefined,
): Promise<ToolCallRecord> {
  const name = call.function.name;
  const tool = environment.tools.get(name);
  if (!tool) {
    return {
      ...base,
      status: "unknown_tool",
      content: toolMessages.unknownTool(name, [...environment.tools.keys()]),
    };
  }

  const invalid = (issues: string[], content: string): ToolCallRecord => ({
    ...base,
    status: "invalid_arguments",
    content,
    error: new InvalidToolInputError({ toolName: name, toolCallId: call.id, issues }),
  });
  let decoded: unknown;
  try {
    decoded = decodeArguments(call.function.arguments);
  } catch (error) {
    const detail = redactText(describeThrown(error));
    return invalid([`(root): not valid JSON: ${detail}`], toolMessages.invalidJson(name, detail));
  }
  const check = tool.checkArguments(decoded);
  if (!check.success) {
    return invalid(check.issues, toolMessages.invalidArguments(name, check.issues));
  }
  const args = check.data;
  const withArguments: ToolCallRecordBase = { ...base, arguments: args };

  // The call's child logger is made when first asked for, not on every call.
  let childLogger: Logger | undefined;
  const logger = () => {
    childLogger ??= environment.logger.child({ tool: name, toolCallId: call.id });
    return childLogger;
  };
  // A call that may need approval runs with a frozen copy whose fingerprint the approval binds to.
  let frozen: FrozenArguments | undefined;
  let notFingerprintable: unknown;
  if (mayBeGated(environment.approvalPolicy, tool)) {
    try {
      frozen = freezeArguments(name, args, tool.target);
    } catch (error) {
      notFingerprintable = error;
    }
  }
  const verdict = await decideByPolicy(
    environment.approvalPolicy,
    tool,
    frozen?.args ?? args,
    logger,
  );
  const shadow = verdict.shadow ? { policy: verdict.shadow } : {};
  const decidedAt = new Date();
  const audited = { toolName: name, toolCallId: call.id, runId: environment.journal.runId };
  if (verdict.decision === "deny") {
    const approval = await recordApprovalDecision(
      environment.audit,
      audited,
      policyRefusal(name, frozen?.fingerprint ?? "", verdict.rule ?? ""),
      decidedAt,
    );
    logPolicyDecision(environment, { toolName: name, toolCallId: call.id }, approval);
    return refusedCall(withArguments, name, approval);
  }
  if (verdict.decision === "allow") {
    if (verdict.rule === undefined || !frozen) {
      if (verdict.shadow)
        logPolicyDecision(
          environment,
          { toolName: name, toolCallId: call.id },
          undefined,
          verdict.shadow,
        );
      return startAndRun(tool, args, withArguments, undefined, environment, logger);
    }
    const approval = await recordApprovalDecision(
      environment.audit,
      audited,
      {
        outcome: "approved",
        fingerprint: frozen.fingerprint,
        rule: verdict.rule,
      } as ApprovedRecord,
      decidedAt,
    );
    logPolicyDecision(environment, { toolName: name, toolCallId: call.id }, approval);
    if (approval.outcome === "refused") {
      return refusedCall(withArguments, name, approval);
    }
    return startAndRun(
      tool,
      frozen.args,
      { ...withArguments, approval },
      approval,
      environment,
      logger,
    );
  }

  if (!frozen) {
    const reason = `its arguments cannot be bound to an approval (${redactText(describeThrown(notFingerprintable))}), so it was not run`;
    const approval: RefusedRecord = {
      outcome: "refused",
      fingerprint: "",
      code: "not_fingerprintable",
      reason,
      ...shadow,
    };
    logger().warn({ code: approval.code }, `approval refused for ${name}: ${reason}`);
    return refusedCall(withArguments, name, approval);
  }
  // A standing approval given earlier in the run may cover the call; else the question may offer
  // one. A call whose question is already out is decided by its answer (it may be a denial).
  let offered: StandingScope | undefined;
  if (verdict.standing && prior?.phase !== "awaiting_approval") {
    const { rule, offer } = verdict.standing;
    const sameValue = sameValueOf(offer, frozen.args, tool.target, logger);
    if (sameValue !== undefined) {
      const like = { rule, toolName: name, target: tool.target, sameValue };
      const now = new Date();
      const coveredBy = environment.journal.takeStandingUse(
        { ...like, fingerprint: frozen.fingerprint },
        now,
      );
      if (coveredBy) {
        const { service: _service, ...coverage } = coveredBy;
        const approval = await recordApprovalDecision(
          environment.audit,
          audited,
          { outcome: "approved", fingerprint: frozen.fingerprint, coveredBy: coverage, ...shadow },
          now,
        );
        logStandingDecision(environment, { toolName: name, toolCallId: call.id }, approval);
        if (approval.outcome === "refused") {
          return refusedCall(withArguments, name, approval);
        }
        return startAndRun(
          tool,
          frozen.args,
          { ...withArguments, approval },
          approval,
          environment,
          logger,
        );
      }
      offered = standingScopeFor(rule, offer, like, now);
    }
  }
  const asking = {
    ...(offered ? { standing: offered } : {}),
    ...(verdict.required !== undefined ? { requiredApprovers: verdict.required } : {}),
  };
  const context = toolContext({ signal: signalForCallee(environment.signal) }, logger, call.id);
  const canSuspend =
    !holdsSecret(decoded, environment.secrets) && !holdsSecret(frozen.args, environment.secrets);
  let askedAt = new Date();
  let asked = await askApproval(tool, frozen, context, environment, {
    prior,
    canSuspend,
    ...asking,
  });
  // "ask-again": an expired question is followed by a new one (never a reuse of the old answer).
  for (
    let questions = 1;
    asked.outcome === "expired" &&
    environment.onApprovalExpired === "ask-again" &&
    questions < maxQuestionsPerCall &&
    !environment.signal.aborted;
    questions++
  ) {
    await recordApprovalDecision(environment.audit, audited, { ...asked, ...shadow }, askedAt);
    logger().info(
      { question: questions + 1 },
      `approval question for ${name} expired; asking again`,
    );
    askedAt = new Date();
    asked = await askApproval(tool, frozen, context, environment, {
      prior: undefined,
      canSuspend,
      ...asking,
    });
  }
  const approval =
    asked.outcome === "pending"
      ? asked
      : await recordApprovalDecision(environment.audit, audited, { ...asked, ...shadow }, askedAt);
  if (approval.outcome === "pending") {
    return { ...withArguments, approval, status: "awaiting_approval", content: "" };
  }
  if (approval.outcome === "expired") {
    return {
      ...withArguments,
      approval,
      status: "expired",
      content: toolMessages.expired(name, approval.reason),
    };
  }
  if (approval.outcome === "refused") {
    if (approval.code === "aborted") return aborted({ ...withArguments, approval }, name);
    return refusedCall(withArguments, name, approval, approval.note);
  }
  if (approval.edited !== undefined) {
    return runEdited(
      tool,
      { ...approval, edited: approval.edited },
      context,
      withArguments,
      environment,
      logger,
    );
  }
  const record = await startAndRun(
    tool,
    frozen.args,
    { ...withArguments, approval },
    approval,
    environment,
    logger,
  );
  if (approval.note === undefined || record.approval?.outcome !== "approved") return record;
  return { ...record, content: toolMessages.withPersonNote(record.content, approval.note) };
}

/**
 * A call the person changed before approving: only the edited action runs,
 * once the tool's schema accepts it and no rule of the approval policy
 * denies it, and the model is told plainly that the person changed the call
 * and what ran.
 */
async function runEdited(
  tool: AnyTool,
  approval: ApprovedRecord & { edited: { arguments: unknown } },
  context: ToolContext,
  base: ToolCallRecordBase,
  environment: ToolCallEnvironment,
  logger: () => Logger,
): Promise<ToolCallRecord> {
  const name = tool.name;
  const accepted = await checkApprovedEdit(tool, approval, context);
  if (!("frozen" in accepted)) {
    logger().warn({ code: accepted.code }, `approval refused for ${name}: ${accepted.reason}`);
    return refusedCall(base, name, accepted, approval.note);
  }
  // The policy holds the edit to the rules the model's call was held to: a
  // person's approval does not lift a rule that denies what they wrote.
  const verdict = await decideByPolicy(
    environment.approvalPolicy,
    tool,
    accepted.frozen.args,
    logger,
  );
  // Nor does one person's approval stand for the approvers a rule requires of what they wrote.
  const required = verdict.decision === "ask" ? (verdict.required ?? 1) : 1;
  const approvers = approval.approvers?.length ?? 1;
  if (verdict.decision === "deny" || required > approvers) {
    const rule = verdict.rule ?? "";
    const refused = await recordApprovalDecision(
      environment.audit,
      { toolName: name, toolCallId: base.toolCallId, runId: environment.journal.runId },
      {
        ...policyRefusal(name, accepted.frozen.fingerprint, rule),
        ...(verdict.decision === "deny"
          ? {
              reason: `the approval policy's rule "${rule}" does not allow this call of ${name} as the person changed it, so it was not run`,
            }
          : {
              code: "not_enough_approvers" as const,
              reason: `the approval policy's rule "${rule}" wants ${required} approvers for this call of ${name} as the person changed it, and ${approvers} approved it, so it was not run`,
            }),
        ...(approval.interactionId !== undefined ? { interactionId: approval.interactionId } : {}),
      },
      new Date(),
    );
    logPolicyDecision(environment, { toolName: name, toolCallId: base.toolCallId }, refused);
    return refusedCall(base, name, refused);
  }
  const edited = { ...approval, edited: { arguments: accepted.frozen.args } };
  const record = await startAndRun(
    tool,
    accepted.frozen.args,
    { ...base, arguments: accepted.frozen.args, approval: edited },
    edited,
    environment,
    logger,
  );
  if (record.approval?.outcome !== "approved") return record;
  return {
    ...record,
    content: toolMessages.editedByPerson(
      name,
      {
        asked: base.arguments,
        ran: accepted.frozen.args,
        summary: accepted.action.description.summary,
      },
      record.content,
      approval.note,
    ),
  };
}

/** With `onApprovalExpired: "ask-again"`, the most questions put about one call. */
const maxQuestionsPerCall = 10;

/**
 * Journals the start of a call of a tool that is not read-only, spending
 * its approval in the same write (the call does not run when that record
 * cannot be kept, or the approval was spent before), checks an approved
 * call's arguments still have the approved fingerprint, then runs it. When
 * the step's calls are asked together, the call first leaves the step's
 * question and waits for one of the step's tool slots.
 */
async function startAndRun(
  tool: AnyTool,
  args: unknown,
  base: ToolCallRecordBase,
  approval: ApprovedRecord | undefined,
  environment: ToolCallEnvironment,
  logger: () => Logger,
): Promise<ToolCallRecord> {
  environment.stepQuestion?.leave();
  const slots = environment.toolSlots;
  if (!slots) return startAndRunNow(tool, args, base, approval, environment, logger);
  try {
    await slots.acquire(environment.signal, () => new AbortedError("The run was aborted"));
  } catch {
    return aborted(base, tool.name);
  }
  try {
    return await startAndRunNow(tool, args, base, approval, environment, logger);
  } finally {
    slots.release();
  }
}

async function startAndRunNow(
  tool: AnyTool,
  args: unknown,
  base: ToolCallRecordBase,
  approval: ApprovedRecord | undefined,
  environment: ToolCallEnvironment,
  logger: () => Logger,
): Promise<ToolCallRecord> {
  const name = tool.name;
  if (environment.signal.aborted) return aborted(base, name);
  // A standing approval's uses are spent one by one, each as an approval of its own.
  const spent = approval?.coveredBy
    ? `${approval.coveredBy.interactionId}#standing-${approval.coveredBy.use}`
    : approval?.interactionId;
  const spends = spent !== undefined;
  // Only a durable run keeps the start record (and needs the fingerprint it
  // holds); an approval is spent by any run.
  if ((tool.readOnly !== true && environment.journal.durable) || spends) {
    const fingerprint = approval?.fingerprint ?? fingerprintOf(tool, args);
    const started = await environment.journal.startCall(base.toolCallId, {
      fingerprint,
      arguments: args,
      ...(spent !== undefined
        ? {
            approval: { service: interactionServiceOf(environment.approver), interactionId: spent },
          }
        : {}),
      ...(approval?.standing !== undefined ? { grants: approval.standing } : {}),
    });
    if (started.outcome === "already_used") {
      const refused = alreadyUsedRecord(approval, name);
      logger().warn(
        { audit: "approval", code: refused.code, interactionId: refused.interactionId },
        `approval refused for ${name}: ${refused.reason}`,
      );
      return refusedCall(base, name, refused);
    }
    if (started.outcome === "already_started") {
      return startedBefore(base, started, environment);
    }
    if (started.outcome === "not_recorded") {
      const notRecorded = started.error;
      return {
        ...base,
        status: "failed",
        error: new ToolExecutionError(
          { toolName: name, toolCallId: base.toolCallId, message: notRecorded.message },
          { cause: notRecorded },
        ),
        content: toolMessages.failed(
          name,
          "it was not run, because the run could not record that it started; a call that may change something runs only once that record is kept, so it never runs twice",
        ),
      };
    }
  }
  if (approval && !sameFingerprint(fingerprintOf(tool, args), approval.fingerprint)) {
    const refused: RefusedRecord = {
      outcome: "refused",
      fingerprint: approval.fingerprint,
      code: "fingerprint_mismatch",
      reason:
        "the arguments changed after they were approved (fingerprint mismatch), so the call was not run",
      ...(approval.interactionId !== undefined ? { interactionId: approval.interactionId } : {}),
    };
    logger().warn({ code: refused.code }, `approval refused for ${name}: ${refused.reason}`);
    return refusedCall(base, name, refused);
  }
  return runTool(tool, args, base, environment, logger);
}

/** The record of a call the gate refused: the refusal, and the tool message telling the model why. */
function refusedCall(
  base: ToolCallRecordBase,
  name: string,
  refused: RefusedRecord,
  note?: string,
): ToolCallRecord {
  return {
    ...base,
    approval: refused,
    status: "refused",
    content: toolMessages.refused(name, refused.code, refused.reason, note),
  };
}

/**
 * Logs the audit line of a call a standing approval covered (no one was
 * asked) and emits `approval-result` for it.
 */
function logStandingDecision(
  environment: ToolCallEnvironment,
  call: { toolName: string; toolCallId: string },
  record: ApprovedRecord | RefusedRecord,
): void {
  const coveredBy = record.outcome === "approved" ? record.coveredBy : undefined;
  environment.logger.info(
    {
      audit: "approval",
      tool: call.toolName,
      toolCallId: call.toolCallId,
      fingerprint: record.fingerprint,
      outcome: record.outcome,
      code: record.outcome === "refused" ? record.code : undefined,
      coveredBy,
    },
    coveredBy
      ? `approval approved for ${call.toolName} by the standing approval of interaction ${coveredBy.interactionId} (use ${coveredBy.use} of ${coveredBy.maxCalls})`
      : `approval ${record.outcome} for ${call.toolName}`,
  );
  environment.emit({
    type: "approval-result",
    stepNumber: environment.stepNumber,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    approval: record,
  });
}

/** The refusal of a call whose approval was spent before (by another run or call, or a newer copy). */
function alreadyUsedRecord(approval: ApprovedRecord | undefined, toolName: string): RefusedRecord {
  const interactionId = approval?.interactionId ?? "";
  return {
    outcome: "refused",
    fingerprint: approval?.fingerprint ?? "",
    code: "already_used",
    reason: `the approval given in interaction "${interactionId}" for "${toolName}" was already used once; an approval lets an action run only once, so ask again`,
    ...(approval?.interactionId !== undefined ? { interactionId } : {}),
  };
}

/** Empty text means no arguments; JSON encoded twice (a string holding an object) is unwrapped. */
function decodeArguments(text: string): unknown {
  if (text.trim() === "") return {};
  const decoded: unknown = JSON.parse(text);
  if (typeof decoded === "string" && decoded.trimStart().startsWith("{")) {
    try {
      return JSON.parse(decoded);
    } catch {
      return decoded;
    }
  }
  return decoded;
}

/**
 * A `ToolContext` whose `signal`, `logger` and `idempotencyKey` are made on
 * first use. Its
 * properties are own, enumerable and writable, as a plain object's are.
 */
function toolContext(
  source: { readonly signal: AbortSignal },
  logger: () => Logger,
  toolCallId: string,
  makeIdempotencyKey?: () => string,
): ToolContext {
  let signal: AbortSignal | undefined;
  let replacedLogger: Logger | undefined;
  const context: ToolContext = {
    get signal(): AbortSignal {
      signal ??= source.signal;
      return signal;
    },
    set signal(value: AbortSignal) {
      signal = value;
    },
    get logger(): Logger {
      return replacedLogger ?? logger();
    },
    set logger(value: Logger) {
      replacedLogger = value;
    },
    toolCallId,
  };
  if (makeIdempotencyKey) {
    // Defined, not spread: spreading an accessor calls it, which made the
    // key (a digest of the arguments) for every call, read or not.
    let idempotencyKey: string | undefined;
    Object.defineProperty(context, "idempotencyKey", {
      get: (): string => {
        idempotencyKey ??= makeIdempotencyKey();
        return idempotencyKey;
      },
      set: (value: string) => {
        idempotencyKey = value;
      },
      enumerable: true,
      configurable: true,
    });
  }
  return context;
}

async function askApproval(
  tool: AnyTool,
  frozen: FrozenArguments,
  context: ToolContext,
  environment: ToolCallEnvironment,
  options: {
    prior: PendingToolCall | undefined;
    canSuspend: boolean;
    standing?: StandingScope;
    requiredApprovers?: number;
  },
): Promise<ApprovalRecord> {
  const built = await buildApprovalAction(tool, frozen.args, frozen.fingerprint, context);
  const { stepNumber, emit, journal } = environment;
  const { prior } = options;
  const check =
    prior?.phase === "awaiting_approval" &&
    prior.interactionId !== undefined &&
    prior.fingerprint !== undefined
      ? { interactionId: prior.interactionId, fingerprint: prior.fingerprint }
      : undefined;
  // A resumed run reads the answer against the scope the question stated, kept in its state.
  const standing = check ? prior?.standing : options.standing;
  const action = {
    ...built,
    ...(standing ? { standing } : {}),
    ...(options.requiredApprovers !== undefined
      ? { requiredApprovers: options.requiredApprovers }
      : {}),
  };
  if (!check) {
    emit({ type: "approval-request", stepNumber, toolCallId: context.toolCallId, action });
  }
  if (!check && environment.suspendOnApproval && !options.canSuspend) {
    context.logger.warn(
      "the arguments hold a secret, which a saved run never keeps; waiting for this approval instead of suspending",
    );
  }
  const allowPending = check !== undefined || (environment.suspendOnApproval && options.canSuspend);
  // An earlier question's answer is read on its own, as is a question offering a standing
  // approval or asking two approvers; any other new question joins the step's.
  if (check || standing || (options.requiredApprovers ?? 1) > 1) environment.stepQuestion?.leave();
  const approval = await (environment.stepQuestion?.ask(action, allowPending) ??
    passApprovalGate({
      approver: environment.approver,
      action,
      signal: environment.signal,
      // The gate's audit line names the tool and the call itself; the call's
      // logger would bind them a second time, as duplicate keys.
      logger: environment.logger,
      allowPending,
      ...(journal.runId !== undefined ? { runId: journal.runId } : {}),
      ...(check ? { check } : {}),
    }));
  emit({
    type: "approval-result",
    stepNumber,
    toolCallId: context.toolCallId,
    toolName: tool.name,
    approval,
  });
  return approval;
}

async function runTool(
  tool: AnyTool,
  args: unknown,
  base: ToolCallRecordBase,
  environment: ToolCallEnvironment,
  logger: () => Logger,
): Promise<ToolCallRecord> {
  const runSignal = environment.signal;
  const toolTimeoutMs = tool.timeoutMs ?? environment.toolTimeoutMs;
  // The tool's own signal, made if the tool reads it; fires on the timeout or the run's abort.
  const controller = new LazyAbortController();
  let stopWaiting: (reason: unknown) => void = () => {};
  const abort = (reason: unknown) => {
    controller.abort(reason);
    stopWaiting(reason);
  };
  const onRunAbort = runSignal === neverAborted ? undefined : () => abort(runSignal.reason);
  if (onRunAbort) runSignal.addEventListener("abort", onRunAbort, { once: true });
  // Built when it fires: an Error captures a stack, too dear for every call.
  let timeout: ToolTimeoutError | undefined;
  const timer = setTimeout(() => {
    timeout = new ToolTimeoutError({
      toolName: tool.name,
      toolCallId: base.toolCallId,
      timeoutMs: toolTimeoutMs,
    });
    abort(timeout);
  }, toolTimeoutMs);
  try {
    // Rejects as soon as the tool's signal fires, so a tool that ignores it cannot hold the run.
    const result = await new Promise((resolve, reject) => {
      stopWaiting = reject;
      const context = toolContext(
        controller,
        logger,
        base.toolCallId,
        // Made when the tool reads it: a digest per call is dear on the hot path.
        () => environment.journal.idempotencyKey(base.toolCallId, fingerprintOf(tool, args)),
      );
      Promise.resolve(tool.execute(args, context)).then(resolve, reject);
    });
    let content: string;
    try {
      content = serializeToolResult(result);
    } catch (error) {
      content = toolMessages.unserializable(tool.name, redactText(describeThrown(error)));
    }
    return { ...base, status: "succeeded", result, content };
  } catch (error) {
    if (runSignal.aborted) {
      return {
        ...base,
        status: "aborted",
        error: new AbortedError("The run was aborted by the caller"),
        content: toolMessages.abortedWhileRunning(tool.name),
      };
    }
    if (timeout !== undefined && controller.reason === timeout) {
      return {
        ...base,
        status: "timed_out",
        error: timeout,
        content: toolMessages.timedOut(tool.name, toolTimeoutMs),
      };
    }
    const failure = new ToolExecutionError(
      { toolName: tool.name, toolCallId: base.toolCallId },
      { cause: error },
    );
    return {
      ...base,
      status: "failed",
      error: failure,
      content: toolMessages.failed(tool.name, redactText(describeThrown(error))),
    };
  } finally {
    clearTimeout(timer);
    if (onRunAbort) runSignal.removeEventListener("abort", onRunAbort);
  }
}

function aborted(base: ToolCallRecordBase, name: string): ToolCallRecord {
  return {
    ...base,
    status: "aborted",
    error: new AbortedError("The run was aborted by the caller"),
    content: toolMessages.aborted(name),
  };
}

/**
 * A call that had started when an earlier process stopped: not run again,
 * reported as of unknown outcome to the model, the run's result and the
 * audit log.
 */
function outcomeUnknown(
  base: ToolCallRecordBase,
  prior: PendingToolCall,
  environment: ToolCallEnvironment,
): ToolCallRecord {
  const readOnlyTools = [...environment.tools.values()]
    .filter((tool) => tool.readOnly === true)
    .map((tool) => tool.name);
  logOutcomeUnknown(base, environment, prior.interactionId);
  return {
    ...base,
    ...(prior.arguments !== undefined ? { arguments: prior.arguments } : {}),
    status: "outcome_unknown",
    content: outcomeUnknownMessage(base.toolName, readOnlyTools),
  };
}

/**
 * A call the run had started before under another id (the step was asked
 * of the model again, which gave the same call a new id): it is not run
 * again, and is of unknown outcome unless its tool message was recorded.
 */
function startedBefore(
  base: ToolCallRecordBase,
  earlier: { toolCallId: string; content?: string },
  environment: ToolCallEnvironment,
): ToolCallRecord {
  const readOnlyTools = [...environment.tools.values()]
    .filter((tool) => tool.readOnly === true)
    .map((tool) => tool.name);
  logOutcomeUnknown(base, environment, undefined, earlier.toolCallId);
  return {
    ...base,
    status: "outcome_unknown",
    content: outcomeUnknownMessage(base.toolName, readOnlyTools, earlier),
  };
}

function logOutcomeUnknown(
  base: ToolCallRecordBase,
  environment: ToolCallEnvironment,
  interactionId: string | undefined,
  startedAs?: string,
): void {
  environment.logger.warn(
    {
      audit: "tool-call",
      tool: base.toolName,
      toolCallId: base.toolCallId,
      outcome: "outcome_unknown",
      ...(interactionId !== undefined ? { interactionId } : {}),
      ...(startedAs !== undefined ? { startedAs } : {}),
    },
    `outcome unknown: ${base.toolName} had started before the run was interrupted; it was not run again`,
  );
}

/** A call of a resumed step that had not run, whose saved arguments lost a secret to redaction. */
function argumentsNotKept(base: ToolCallRecordBase): ToolCallRecord {
  const issue = "(root): held a secret, which a saved run does not keep; send the arguments again";
  return {
    ...base,
    status: "invalid_arguments",
    error: new InvalidToolInputError({
      toolName: base.toolName,
      toolCallId: base.toolCallId,
      issues: [issue],
    }),
    content: argumentsNotKeptMessage(base.toolName, issue),
  };
}
