import { randomUUID } from "node:crypto";
import type { BaseEvent, Interrupt } from "@ag-ui/core";
import type { AgentEvent } from "../agent/agent-events.js";
import type { ApprovalAction } from "../agent/approver.js";
import { showApprovalAction, showArguments } from "../agent/build-approval-action.js";
import type { ModelMessage } from "../agent/model-message.js";
import type { RunResult } from "../agent/run-result.js";
import { runTaskOf } from "../agent/run-task.js";
import { SecretRegistry } from "../internal/redact.js";
import { StreamingRedactor } from "../internal/streaming-redactor.js";
import { readAgUiTicket } from "./ag-ui-ticket.js";
import { interruptForAction } from "./interrupt-for-action.js";

/** An AG-UI event as it goes on the wire (the `type` one of AG-UI's event types). */
export type AgUiEvent = BaseEvent & Record<string, unknown>;

/** The CUSTOM event naming the arguments an edited call runs with (`value: { toolCallId, arguments }`). */
const editedArgumentsEventName = "switchyard.edited_arguments";

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
 *
 * Each tool call is announced once per thread (TOOL_CALL_START as soon as
 * the model names it), and its arguments are sent once, whole, as the call
 * will run: the validated arguments the person is asked about (or the call
 * ran with), the agent's secrets removed from the parsed value, never the
 * pieces a provider streamed before its final word.
 */
export class AgUiEventTranslator {
  readonly #ids: AgUiRunIds;
  #messageId: string | undefined;
  #step: number | undefined;
  /** The open text message's redactor; `undefined` when no text message is open. */
  #text: StreamingRedactor | undefined;
  /** Each announced tool call whose arguments are not sent yet, with the model's raw arguments once known. */
  readonly #openToolCalls = new Map<string, { rawArguments?: string }>();
  readonly #announced = new Set<string>();
  /** Calls an earlier AG-UI run of the thread announced: only their results go out. */
  readonly #announcedBefore = new Set<string>();
  readonly #asked = new Map<string, ApprovalAction>();
  readonly #interrupts: Interrupt[] = [];
  #secrets = new SecretRegistry();
  /** The run's task, named by its interrupts; see {@link AgUiEventTranslator.runAnswers}. */
  #task: string | undefined;

  constructor(ids: AgUiRunIds) {
    this.#ids = ids;
  }

  /**
   * Tool calls an earlier AG-UI run of the thread announced (the calls a
   * resumed run waited on): never announced again, only their results go out.
   */
  announcedBefore(toolCallIds: Iterable<string>): void {
    for (const id of toolCallIds) this.#announcedBefore.add(id);
  }

  /**
   * The agent's secrets (its `secrets` option, its clients' tokens):
   * removed from then on from the interrupts (as from the question), the
   * text streamed to the client (a secret streamed across two deltas
   * included), the tool calls' arguments and error messages.
   */
  redactWith(secrets: SecretRegistry | undefined): void {
    if (secrets) this.#secrets = secrets;
  }

  /**
   * The conversation the run answers: its interrupts name the user message
   * it answers as their `task` (as every approval channel does), cut and
   * with the secrets removed. Call after {@link redactWith}.
   */
  runAnswers(messages: readonly ModelMessage[]): void {
    this.#task = runTaskOf(messages, this.#secrets);
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
        // Only announced: pieces may be replaced by the provider's final word.
        if (this.#announcedBefore.has(event.toolCallId)) return [];
        return [
          ...this.#openStep(event.stepNumber),
          ...this.#startToolCall(event.toolCallId, event.toolName),
        ];
      case "tool-call": {
        if (this.#announcedBefore.has(event.toolCallId)) return [];
        const events = [
          ...this.#openStep(event.stepNumber),
          ...this.#startToolCall(event.toolCallId, event.toolName),
        ];
        const open = this.#openToolCalls.get(event.toolCallId);
        if (open) open.rawArguments = event.rawArguments;
        return events;
      }
      case "approval-request": {
        // The action as the person is shown it: the agent's secrets removed (the fingerprint is the real call's).
        const action = showApprovalAction(event.action, this.#secrets);
        this.#asked.set(event.toolCallId, action);
        // What the person is asked about is what runs: its validated arguments.
        return this.#endToolCall(event.toolCallId, { value: action.arguments, shown: true });
      }
      case "approval-result":
        if (event.approval.outcome === "pending") {
          const action = this.#asked.get(event.toolCallId);
          const { expiresAt } = readAgUiTicket(event.approval.ticket);
          if (action)
            this.#interrupts.push(
              interruptForAction(action, event.approval.approvalId, expiresAt, this.#task),
            );
        }
        // The person changed the call: the client's TOOL_CALL_ARGS hold what was asked
        // about (AG-UI appends arguments, so they are not sent again); this names what runs.
        if (event.approval.outcome === "approved" && event.approval.edited !== undefined) {
          return [
            {
              type: "CUSTOM",
              name: editedArgumentsEventName,
              value: {
                toolCallId: event.toolCallId,
                // As the view shows arguments: what the person typed, a known secret's placeholders.
                arguments: showArguments(event.approval.edited.arguments, this.#secrets),
              },
            } as AgUiEvent,
          ];
        }
        return [];
      case "tool-result": {
        const call = event.toolCall;
        if (call.status === "awaiting_approval") return this.#endToolCall(call.toolCallId);
        return [
          ...this.#openStep(event.stepNumber),
          ...this.#closeText(),
          ...this.#endToolCall(
            call.toolCallId,
            call.arguments !== undefined ? { value: call.arguments } : undefined,
          ),
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

  /** RUN_ERROR for a run that stopped part way: what it left open (a tool call, a step) ends first. */
  finishWith(code: string, message: string): AgUiEvent[] {
    return [...this.#closeAll(), ...this.error(code, message)];
  }

  #closeAll(): AgUiEvent[] {
    return [
      ...[...this.#openToolCalls.keys()].flatMap((id) => this.#endToolCall(id)),
      ...this.#closeStep(),
    ];
  }

  #finish(result: RunResult<unknown>): AgUiEvent[] {
    // A run that suspends or fails stops inside a step: the step ends with the run.
    const closing = this.#closeAll();
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

  /** TOOL_CALL_START, once per call and thread. */
  #startToolCall(toolCallId: string, toolName: string): AgUiEvent[] {
    if (this.#announced.has(toolCallId)) return [];
    this.#announced.add(toolCallId);
    this.#openToolCalls.set(toolCallId, {});
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

  /**
   * The call's arguments, once and whole, then TOOL_CALL_END: `known`, the
   * validated arguments, when the run has them; else the model's own,
   * parsed. Secrets are removed from the value, never from its text.
   */
  #endToolCall(toolCallId: string, known?: { value: unknown; shown?: true }): AgUiEvent[] {
    const open = this.#openToolCalls.get(toolCallId);
    if (open === undefined) return [];
    this.#openToolCalls.delete(toolCallId);
    // Arguments a person is asked about are the view's (registered secrets and
    // secret-named fields already placeholders): no pattern changes what they judge.
    const text =
      known !== undefined
        ? (JSON.stringify(known.shown ? known.value : this.#secrets.redactValue(known.value)) ?? "")
        : this.#argumentsText(open.rawArguments ?? "");
    return [
      ...(text === "" ? [] : [{ type: "TOOL_CALL_ARGS", toolCallId, delta: text } as AgUiEvent]),
      { type: "TOOL_CALL_END", toolCallId } as AgUiEvent,
    ];
  }

  /** The model's raw arguments, parsed and redacted as a value; as redacted text when not JSON. */
  #argumentsText(rawArguments: string): string {
    if (rawArguments.trim() === "") return "";
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawArguments);
    } catch {
      return this.redact(rawArguments);
    }
    return JSON.stringify(this.#secrets.redactValue(parsed));
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

function stepName(stepNumber: number): string {
  return `step ${stepNumber}`;
}
