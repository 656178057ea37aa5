import type { Logger } from "pino";
import { AbortedError } from "../errors/transport-errors.js";
import { redactedMarker, redactText } from "../internal/redact.js";
import type { AnyTool } from "../tools/tool.js";
import { publishApprovalDecision } from "./approval/approval-audit-record.js";
import { logShadowVerdict, mayBeGated } from "./approval/approval-policy.js";
import {
  type CallDecision,
  decideApproval,
  type FinalApproval,
} from "./approval/decide-approval.js";
import { fingerprintOf, sameFingerprint } from "./approval/fingerprint-check.js";
import type { ApprovalRecord, ApprovedRecord, RefusedRecord } from "./approval-gate.js";
import { describeThrown } from "./describe-thrown.js";
import { argumentsNotKeptMessage } from "./durable/arguments-not-kept-message.js";
import { outcomeUnknownMessage } from "./durable/outcome-unknown-message.js";
import { reconcileStartedCall } from "./durable/reconcile-started-call.js";
import { holdsSecret } from "./durable/redact-run-state.js";
import type { PendingToolCall } from "./durable/run-state.js";
import { InvalidToolInputError, ToolExecutionError } from "./errors.js";
import { type FrozenArguments, freezeArguments } from "./freeze-arguments.js";
import type { ModelToolCall } from "./model-message.js";
import { signalForCallee } from "./never-aborted.js";
import type { ToolCallRecord, ToolCallRecordBase } from "./run-result.js";
import { runTool } from "./run-tool.js";
import type { ToolCallEnvironment } from "./tool-call-environment.js";
import { toolContext } from "./tool-context.js";
import { toolMessages } from "./tool-messages.js";

export type { ToolCallEnvironment } from "./tool-call-environment.js";

/**
 * Runs one tool call the model asked for and never throws: an unknown tool,
 * arguments that are not JSON or fail the schema, a refused approval, a tool
 * that throws or times out, and an abort each become a record whose `content`
 * tells the model what happened.
 *
 * A call that may need approval is decided in one step (policy, standing
 * approval, question, edit), and settled in one: the final decision is
 * recorded once (audit log, log line, hook, event), and only then runs,
 * with a frozen copy of its arguments checked against the approved
 * fingerprint, or is refused.
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
    return await checkDecideAndSettle(call, base, environment, prior);
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

/** A call being settled: its tool, its record so far, and its logger. */
interface CallInHand {
  tool: AnyTool;
  base: ToolCallRecordBase;
  logger: () => Logger;
}

async function checkDecideAndSettle(
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
  const { length } = call.function.arguments;
  if (length > maximumArgumentsLength) {
    const issue = `(root): the arguments are ${length} characters long, more than the ${maximumArgumentsLength} a tool call may have; send shorter arguments, splitting the work over several calls`;
    return invalid([issue], toolMessages.invalidArguments(name, [issue]));
  }
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
  // The call's child logger is made when first asked for, not on every call.
  let childLogger: Logger | undefined;
  const logger = () => {
    childLogger ??= environment.logger.child({ tool: name, toolCallId: call.id });
    return childLogger;
  };
  const hand: CallInHand = { tool, base: { ...base, arguments: args }, logger };
  // No rule can ask about or decide this tool's calls: nothing to decide,
  // and nothing to build for a question (the policy would allow it unnamed).
  if (!mayBeGated(environment.approvalPolicy, tool)) {
    return await settle(hand, { kind: "ungated", shadow: undefined }, environment);
  }
  // A call that may need approval runs with a frozen copy whose fingerprint the approval binds to.
  let frozen: FrozenArguments | undefined;
  let notFingerprintable: unknown;
  try {
    frozen = freezeArguments(name, args, tool.target);
  } catch (error) {
    notFingerprintable = error;
  }
  const decision = await decideApproval(
    {
      tool,
      args,
      frozen,
      notFingerprintable,
      prior,
      canSuspend: () =>
        !holdsSecret(decoded, environment.secrets) &&
        !holdsSecret(frozen?.args, environment.secrets),
      context: toolContext({ signal: signalForCallee(environment.signal) }, logger, call.id),
      logger,
      publishExpired: async (expired, requestedAt) => {
        await publish(hand, expired, requestedAt, environment);
      },
    },
    environment,
  );
  return await settle(hand, decision, environment);
}

/**
 * The one settling step: a pending question leaves the call awaiting its
 * answer; a final decision is checked at the start write (an approval
 * spent before, arguments that changed, an abort), recorded once, and the
 * call then runs or is refused as that record says.
 */
async function settle(
  hand: CallInHand,
  decision: CallDecision,
  environment: ToolCallEnvironment,
): Promise<ToolCallRecord> {
  const { tool, base } = hand;
  if (decision.kind === "ungated") {
    if (decision.shadow) logShadowVerdict(environment.logger, base, decision.shadow);
    return await withSlot(hand, environment, async () => {
      const start = await startCall(hand, base.arguments, undefined, environment);
      if ("started" in start) {
        return await runTool(tool, base.arguments, base, environment, hand.logger);
      }
      return "notRecorded" in start
        ? start.notRecorded
        : (start.record ?? aborted(base, tool.name));
    });
  }
  if (decision.kind === "pending") {
    const approval = await publish(hand, decision.approval, new Date(), environment);
    if (approval.outcome !== "pending") return decided(hand, approval, undefined);
    return { ...base, approval, status: "awaiting_approval", content: "" };
  }
  const { requestedAt } = decision;
  if (decision.approval.outcome !== "approved") {
    return decided(
      hand,
      await publish(hand, decision.approval, requestedAt, environment),
      decision,
    );
  }
  const approved = decision.approval;
  return withSlot(
    hand,
    environment,
    async () => {
      const args = decision.args;
      const start = await startCall(hand, args, approved, environment);
      // Nothing was spent and the run stops on the store's error: the call is decided again when resumed.
      if ("notRecorded" in start) return start.notRecorded;
      const final = await publish(
        hand,
        "refused" in start ? start.refused : approved,
        requestedAt,
        environment,
      );
      if ("refused" in start && start.record) return start.record;
      if (final.outcome !== "approved") return decided(hand, final, decision);
      const ran = await runTool(
        tool,
        args,
        { ...base, arguments: args, approval: final },
        environment,
        hand.logger,
      );
      return decided(hand, final, decision, ran);
    },
    async () =>
      decided(
        hand,
        await publish(hand, abortRefusal(approved), requestedAt, environment),
        decision,
      ),
  );
}

/** Records a decision once (audit log, log line, `onApprovalDecided`, `approval-result`). */
function publish<Decision extends ApprovalRecord>(
  hand: CallInHand,
  decision: Decision,
  requestedAt: Date,
  environment: ToolCallEnvironment,
): Promise<Decision | RefusedRecord> {
  const { toolName, toolCallId } = hand.base;
  return publishApprovalDecision(
    environment.audit,
    {
      toolName,
      toolCallId,
      runId: environment.journal.runId,
      emit: (approval) =>
        environment.emit({
          type: "approval-result",
          stepNumber: environment.stepNumber,
          toolCallId,
          toolName,
          approval,
        }),
    },
    decision,
    requestedAt,
  );
}

/** The call's record as its final decision says: run (with the person's note or edit told), or not. */
function decided(
  hand: CallInHand,
  approval: FinalApproval,
  decision: Extract<CallDecision, { kind: "decided" }> | undefined,
  ran?: ToolCallRecord,
): ToolCallRecord {
  const { base, tool } = hand;
  const name = tool.name;
  if (approval.outcome === "expired") {
    return {
      ...base,
      approval,
      status: "expired",
      content: toolMessages.expired(name, approval.reason),
    };
  }
  if (approval.outcome === "refused") {
    if (approval.code === "aborted") return aborted({ ...base, approval }, name);
    return {
      ...base,
      approval,
      status: "refused",
      content: toolMessages.refused(name, approval.code, approval.reason, approval.note),
    };
  }
  if (!ran) return aborted({ ...base, approval }, name);
  if (decision?.edit) {
    return {
      ...ran,
      content: toolMessages.editedByPerson(
        name,
        { asked: decision.edit.asked, ran: decision.args, summary: decision.edit.summary },
        ran.content,
        approval.note,
      ),
    };
  }
  if (approval.note === undefined) return ran;
  return { ...ran, content: toolMessages.withPersonNote(ran.content, approval.note) };
}

/**
 * Runs `body` in one of the step's tool slots, when its calls are asked
 * together (after leaving the step's question); `onAbort` when the run is
 * aborted before a slot is free or before the call starts.
 */
async function withSlot(
  hand: CallInHand,
  environment: ToolCallEnvironment,
  body: () => Promise<ToolCallRecord>,
  onAbort: () => Promise<ToolCallRecord> = async () => aborted(hand.base, hand.tool.name),
): Promise<ToolCallRecord> {
  environment.stepQuestion?.leave();
  const slots = environment.toolSlots;
  if (slots) {
    try {
      await slots.acquire(environment.signal, () => new AbortedError("The run was aborted"));
    } catch {
      return onAbort();
    }
  }
  try {
    if (environment.signal.aborted) return await onAbort();
    return await body();
  } finally {
    slots?.release();
  }
}

/**
 * The start write: journals the start of a call of a tool that is not
 * read-only, spending its approval in the same write, after checking the
 * approved call's arguments still have the approved fingerprint. A refusal
 * (`already_used`, `fingerprint_mismatch`) is the decision's final record,
 * with the `record` of a call that had started before; `notRecorded` ends
 * the call with nothing spent.
 */
async function startCall(
  hand: CallInHand,
  args: unknown,
  approval: ApprovedRecord | undefined,
  environment: ToolCallEnvironment,
): Promise<
  | { started: true }
  | { refused: RefusedRecord; record?: ToolCallRecord }
  | { notRecorded: ToolCallRecord }
> {
  const { tool, base } = hand;
  const name = tool.name;
  if (approval && !sameFingerprint(fingerprintOf(tool, args), approval.fingerprint)) {
    return {
      refused: {
        outcome: "refused",
        fingerprint: approval.fingerprint,
        code: "fingerprint_mismatch",
        reason:
          "the arguments changed after they were approved (fingerprint mismatch), so the call was not run",
        ...approvalIdOf(approval),
      },
    };
  }
  // A policy rule's approval was never asked for, so it has no id and nothing is spent.
  const spent = approval?.approvalId;
  const spends = spent !== undefined;
  // A call that may change something, or spends an approval, runs only
  // once its start is recorded; a read-only call without one just runs.
  if (tool.readOnly === true && !spends) return { started: true };
  const fingerprint =
    approval?.fingerprint ??
    (environment.journal.matchesStartsByContent ? fingerprintOf(tool, args) : undefined);
  const started = await environment.journal.startCall(base.toolCallId, {
    fingerprint,
    arguments: args,
    ...(spent !== undefined ? { approval: spent } : {}),
    ...(approval?.standing !== undefined ? { grants: approval.standing } : {}),
  });
  if (started.outcome === "started") return { started: true };
  if (started.outcome === "already_used") return { refused: alreadyUsedRecord(approval, name) };
  if (started.outcome === "already_started") {
    const refused: RefusedRecord = {
      ...alreadyUsedRecord(approval, name),
      reason: `this call had started before (as call "${started.toolCallId}"), so it was not run again`,
    };
    return { refused, record: startedBefore(base, started, environment) };
  }
  const notRecorded = started.error;
  return {
    notRecorded: {
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
    },
  };
}

/** The refusal of an approved call the run was aborted before it started. */
function abortRefusal(approval: ApprovedRecord): RefusedRecord {
  return {
    outcome: "refused",
    fingerprint: approval.fingerprint,
    code: "aborted",
    reason: "the run was aborted before the approved call started, so it was not run",
    ...approvalIdOf(approval),
  };
}

function approvalIdOf(approval: ApprovedRecord): { approvalId?: string } {
  return approval.approvalId !== undefined ? { approvalId: approval.approvalId } : {};
}

/** The refusal of a call whose approval was spent before (by another run or call, or a newer copy). */
function alreadyUsedRecord(approval: ApprovedRecord | undefined, toolName: string): RefusedRecord {
  return {
    outcome: "refused",
    fingerprint: approval?.fingerprint ?? "",
    code: "already_used",
    reason: `the approval "${approval?.approvalId ?? ""}" for "${toolName}" was already used once; an approval lets an action run only once, so ask again`,
    ...(approval ? approvalIdOf(approval) : {}),
  };
}

/**
 * The longest arguments text of a tool call read: a longer one is refused
 * as invalid before it is parsed, checked or shown to anyone. No model
 * writes a million characters of arguments for one call by accident.
 */
const maximumArgumentsLength = 1_000_000;

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
  logOutcomeUnknown(base, environment, prior.approvalId);
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
  approvalId: string | undefined,
  startedAs?: string,
): void {
  environment.logger.warn(
    {
      audit: "tool-call",
      tool: base.toolName,
      toolCallId: base.toolCallId,
      outcome: "outcome_unknown",
      ...(approvalId !== undefined ? { approvalId } : {}),
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
