import { randomUUID } from "node:crypto";
import type { BaseEvent, Interrupt } from "@ag-ui/core";
import type { AgentEvent } from "../agent/agent-events.js";
import type { ApprovalAction } from "../agent/approver.js";
import { showApprovalAction } from "../agent/build-approval-action.js";
import type { RunResult } from "../agent/run-result.js";
import { SecretRegistry } from "../internal/redact.js";
import { StreamingRedactor } from "../internal/streaming-redactor.js";
import { interruptForAction } from "./interrupt-for-action.js";

/** An AG-UI event as it goes on the wire (the `type` one of AG-UI's event types). */
export type AgUiEvent = BaseEvent & Record<string, unknown>;

/** Where an AG-UI run happens: what RUN_STARTED, RUN_FINISHED and RUN_ERROR name. */
export interface AgUiRunIds {
  threadId: string;
  runId: string;
}

/**
 * Turns a Switchyard run's events into AG-UI events, in order: steps, text
 * messages, tool calls and their results, and the run's end (RUN_FINISHED,
 * with an interrupt outcome for each approval the run waits for, or
 * RUN_ERROR). One per AG-UI run.
 */
export class AgUiEventTranslator {
  readonly #ids: AgUiRunIds;
  #messageId: string | undefined;
  #step: number | undefined;
  /** The open text message's redactor; `undefined` when no text message is open. */
  #text: StreamingRedactor | undefined;
  /** Each open tool call's argument text redactor. */
  readonly #openToolCalls = new Map<string, StreamingRedactor>();
  readonly #announced = new Set<string>();
  readonly #asked = new Map<string, ApprovalAction>();
  readonly #interrupts: Interrupt[] = [];
  #secrets = new SecretRegistry();

  constructor(ids: AgUiRunIds) {
    this.#ids = ids;
  }

  /**
   * The agent's secrets (its `secrets` option, its clients' tokens):
   * removed from then on from the interrupts (as from the question), the
   * text and tool calls' argument text streamed to the client (a secret
   * streamed across two deltas included) and error messages.
   */
  redactWith(secrets: SecretRegistry | undefined): void {
    if (secrets) this.#secrets = secrets;
  }

  /** `text` with the patterns' and the agent's secrets removed. */
  redact(text: string): string {
    return this.#secrets.redactText(text);
  }

  /** RUN_STARTED. */
  start(): AgUiEvent[] {
    return [{ type: "RUN_STARTED", ...this.#ids } as AgUiEvent];
  }

  /** The AG-UI events one agent event stands for (often none or one). */
  translate(event: AgentEvent<unknown>): AgUiEvent[] {
    switch (event.type) {
      case "step-start":
        return this.#openStep(event.stepNumber);
      case "text-delta": {
        if (event.delta === "") return [];
        const events = [...this.#openStep(event.stepNumber), ...this.#openText()];
        return [...events, ...this.#textContent(this.#text!.push(event.delta))];
      }
      case "tool-call-delta":
        return [
          ...this.#openStep(event.stepNumber),
          ...this.#toolCallDelta(event.toolCallId, event.toolName, event.argumentsDelta),
        ];
      case "tool-call":
        return [
          ...this.#openStep(event.stepNumber),
          ...this.#toolCall(event.toolCallId, event.toolName, event.rawArguments),
        ];
      case "approval-request":
        // The action as the person is shown it: the agent's secrets removed (the fingerprint is the real call's).
        this.#asked.set(event.toolCallId, showApprovalAction(event.action, this.#secrets));
        return [];
      case "approval-result":
        if (event.approval.outcome === "pending") {
          const action = this.#asked.get(event.toolCallId);
          if (action) this.#interrupts.push(interruptForAction(action, event.approval.approvalId));
        }
        return [];
      case "tool-result": {
        const call = event.toolCall;
        if (call.status === "awaiting_approval") return [];
        return [
          ...this.#openStep(event.stepNumber),
          ...this.#closeText(),
          ...this.#endToolCall(call.toolCallId),
          {
            type: "TOOL_CALL_RESULT",
            messageId: randomUUID(),
            toolCallId: call.toolCallId,
            content: call.content,
            role: "tool",
          } as AgUiEvent,
        ];
      }
      case "step-finish":
        return [...this.#openStep(event.stepNumber), ...this.#closeStep()];
      case "finish":
        return this.#finish(event.result);
      default:
        return [];
    }
  }

  /** RUN_ERROR for a run that could not go on, closing nothing else. */
  error(code: string, message: string): AgUiEvent[] {
    return [{ type: "RUN_ERROR", code, message } as AgUiEvent];
  }

  #finish(result: RunResult<unknown>): AgUiEvent[] {
    // A run that suspends or fails stops inside a step: the step ends with the run.
    const closing = [
      ...[...this.#openToolCalls.keys()].flatMap((id) => this.#endToolCall(id)),
      ...this.#closeStep(),
    ];
    if (result.status === "completed") {
      return [
        ...closing,
        { type: "RUN_FINISHED", ...this.#ids, outcome: { type: "success" } } as AgUiEvent,
      ];
    }
    if (result.status === "suspended" && this.#interrupts.length > 0) {
      return [
        ...closing,
        {
          type: "RUN_FINISHED",
          ...this.#ids,
          outcome: { type: "interrupt", interrupts: this.#interrupts },
        } as AgUiEvent,
      ];
    }
    const message =
      result.status === "suspended"
        ? "The run waits for an approval this handler did not ask (the agent's approver is not the handler's AgUiApprover)."
        : this.redact(result.error?.message ?? `The run ended ${result.status}.`);
    return [...closing, ...this.error(result.status, message)];
  }

  /** STEP_STARTED for this step unless it is open (a resumed run goes on inside a step). */
  #openStep(stepNumber: number): AgUiEvent[] {
    if (this.#step === stepNumber) return [];
    const closing = this.#closeStep();
    this.#step = stepNumber;
    this.#messageId = randomUUID();
    return [...closing, { type: "STEP_STARTED", stepName: stepName(stepNumber) } as AgUiEvent];
  }

  #closeStep(): AgUiEvent[] {
    if (this.#step === undefined) return [];
    const step = this.#step;
    this.#step = undefined;
    return [...this.#closeText(), { type: "STEP_FINISHED", stepName: stepName(step) } as AgUiEvent];
  }

  #toolCallDelta(toolCallId: string, toolName: string, delta: string): AgUiEvent[] {
    const events = this.#announced.has(toolCallId) ? [] : this.#startToolCall(toolCallId, toolName);
    const redactor = this.#openToolCalls.get(toolCallId);
    if (delta === "" || redactor === undefined) return events;
    return [...events, ...toolCallArgs(toolCallId, redactor.push(delta))];
  }

  #toolCall(toolCallId: string, toolName: string, rawArguments: string): AgUiEvent[] {
    if (this.#announced.has(toolCallId)) return this.#endToolCall(toolCallId);
    const events = this.#startToolCall(toolCallId, toolName);
    if (rawArguments !== "")
      events.push({
        type: "TOOL_CALL_ARGS",
        toolCallId,
        delta: this.redact(rawArguments),
      } as AgUiEvent);
    return [...events, ...this.#endToolCall(toolCallId)];
  }

  #startToolCall(toolCallId: string, toolName: string): AgUiEvent[] {
    this.#announced.add(toolCallId);
    this.#openToolCalls.set(toolCallId, new StreamingRedactor(this.#secrets));
    return [
      ...this.#closeText(),
      {
        type: "TOOL_CALL_START",
        toolCallId,
        toolCallName: toolName,
        parentMessageId: this.#currentMessageId(),
      } as AgUiEvent,
    ];
  }

  #endToolCall(toolCallId: string): AgUiEvent[] {
    const redactor = this.#openToolCalls.get(toolCallId);
    if (redactor === undefined) return [];
    this.#openToolCalls.delete(toolCallId);
    return [
      ...toolCallArgs(toolCallId, redactor.flush()),
      { type: "TOOL_CALL_END", toolCallId } as AgUiEvent,
    ];
  }

  #openText(): AgUiEvent[] {
    if (this.#text) return [];
    this.#text = new StreamingRedactor(this.#secrets);
    return [
      {
        type: "TEXT_MESSAGE_START",
        messageId: this.#currentMessageId(),
        role: "assistant",
      } as AgUiEvent,
    ];
  }

  #closeText(): AgUiEvent[] {
    if (!this.#text) return [];
    const rest = this.#text.flush();
    this.#text = undefined;
    return [
      ...this.#textContent(rest),
      { type: "TEXT_MESSAGE_END", messageId: this.#currentMessageId() } as AgUiEvent,
    ];
  }

  #textContent(delta: string): AgUiEvent[] {
    if (delta === "") return [];
    return [
      { type: "TEXT_MESSAGE_CONTENT", messageId: this.#currentMessageId(), delta } as AgUiEvent,
    ];
  }

  #currentMessageId(): string {
    this.#messageId ??= randomUUID();
    return this.#messageId;
  }
}

/** TOOL_CALL_ARGS with this redacted delta; none for an empty one. */
function toolCallArgs(toolCallId: string, delta: string): AgUiEvent[] {
  return delta === "" ? [] : [{ type: "TOOL_CALL_ARGS", toolCallId, delta } as AgUiEvent];
}

function stepName(stepNumber: number): string {
  return `step ${stepNumber}`;
}
