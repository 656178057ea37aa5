import type { ApprovalRecord } from "./approval-gate.js";
import type { ApprovalAction } from "./approver.js";
import type { RunResult, RunStep, ToolCallRecord } from "./run-result.js";

/**
 * What `agent.stream()` yields, in order. Each event but `finish` carries the
 * step (model call) it belongs to, from 1.
 */
export type AgentEvent<Output = string> =
  /** A model call is about to be made for this step. */
  | { type: "step-start"; stepNumber: number }
  /** A piece of the model's answer text, as it streams. */
  | { type: "text-delta"; stepNumber: number; delta: string }
  /** A piece of the model's reasoning text, when the service streams it. */
  | { type: "reasoning-delta"; stepNumber: number; delta: string }
  /**
   * A piece of a tool call's arguments, as it streams (`stream()` only). The
   * assembled call still comes once, as `tool-call`, after the answer ends.
   */
  | {
      type: "tool-call-delta";
      stepNumber: number;
      /** Position of the call in the answer, from 0. */
      toolCallIndex: number;
      /** The call's id as streamed; `tool-call` carries the same id unless the provider repeated one. */
      toolCallId: string;
      toolName: string;
      /** The next piece of the raw JSON text of the arguments; the first may be `""`, announcing the call. */
      argumentsDelta: string;
    }
  /** The model asked for a tool; emitted for each call before any runs. */
  | {
      type: "tool-call";
      stepNumber: number;
      toolCallId: string;
      toolName: string;
      /** The raw JSON text the model sent. */
      rawArguments: string;
    }
  /**
   * A tool call needs approval; the approver is being asked (not when a
   * resumed run reads an earlier answer). Also when the run's budget is
   * spent and `onExhausted: "ask"` asks to extend it: `action.toolName` is
   * `extend_run_budget`, `toolCallId` is `budget-extension-<n>`, and no
   * `tool-call` event goes with it.
   */
  | { type: "approval-request"; stepNumber: number; toolCallId: string; action: ApprovalAction }
  /**
   * The approval gate decided (about a tool call, or an extension of the
   * budget: `toolName` `extend_run_budget`). In a durable run `approval.outcome` may be
   * `pending`: the call waits (its `tool-result` has status
   * `awaiting_approval`) and the run will end `suspended`.
   */
  | {
      type: "approval-result";
      stepNumber: number;
      toolCallId: string;
      toolName: string;
      approval: ApprovalRecord;
    }
  /** A tool call ended, whatever the outcome, or was left awaiting approval; emitted as each ends. */
  | { type: "tool-result"; stepNumber: number; toolCall: ToolCallRecord }
  /** A step ended; its tool messages are in the conversation. Not emitted for a step the run suspends in. */
  | { type: "step-finish"; stepNumber: number; step: RunStep }
  /** The run ended; the same result `stream().result` resolves to. Always the last event. */
  | { type: "finish"; result: RunResult<Output> };

/** Receives the loop's events; a no-op for `run()`. */
export type AgentEventSink = (event: AgentEvent<unknown>) => void;
