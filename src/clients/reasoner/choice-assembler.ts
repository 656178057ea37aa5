import type { ChatAssistantMessage, ChatChoice, ChatStreamEvent } from "./chat-types.js";
import { readContentParts } from "./read-content-parts.js";
import { appendArguments, ToolCallAssembler } from "./tool-call-assembler.js";
import { isPlainObject } from "./validation-checks.js";

/**
 * Collects the deltas of one choice of a stream. Text is kept as a list of
 * parts and joined once at the end, so a long answer costs no repeated
 * concatenation.
 */
export class ChoiceAssembler {
  readonly index: number;
  finishReason: string | undefined;
  readonly #contentParts: string[] = [];
  readonly #reasoningParts: string[] = [];
  readonly #refusalParts: string[] = [];
  readonly #toolCalls = new ToolCallAssembler();
  /** A legacy `function_call`, streamed as name then argument fragments. */
  #functionCall: { name: string; argumentParts: string[] } | undefined;

  constructor(index: number) {
    this.index = index;
  }

  /** Takes one entry of a chunk's `choices`, adding its events to `events`. */
  accept(choice: Record<string, unknown>, events: ChatStreamEvent[]): void {
    const delta = choice.delta;
    if (isPlainObject(delta)) {
      let content = delta.content;
      let reasoning = readReasoning(delta);
      if (Array.isArray(content)) {
        // Typed parts: thinking comes before the answer within one delta.
        const parts = readContentParts(content);
        content = parts.text;
        reasoning = (reasoning ?? "") + parts.reasoning || undefined;
      }
      if (reasoning !== undefined) {
        this.#reasoningParts.push(reasoning);
        events.push({ type: "reasoning-delta", choiceIndex: this.index, delta: reasoning });
      }
      if (typeof content === "string" && content !== "") {
        this.#contentParts.push(content);
        events.push({ type: "text-delta", choiceIndex: this.index, delta: content });
      }
      if (typeof delta.refusal === "string" && delta.refusal !== "") {
        this.#refusalParts.push(delta.refusal);
      }
      if (isPlainObject(delta.function_call)) this.#acceptFunctionCall(delta.function_call);
      const toolCalls = delta.tool_calls;
      if (Array.isArray(toolCalls)) {
        for (const fragment of toolCalls) this.#toolCalls.accept(fragment, this.index, events);
      }
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
      this.finishReason = choice.finish_reason;
    }
  }

  #acceptFunctionCall(fragment: Record<string, unknown>): void {
    this.#functionCall ??= { name: "", argumentParts: [] };
    const call = this.#functionCall;
    if (call.name === "" && typeof fragment.name === "string") call.name = fragment.name;
    appendArguments(call.argumentParts, fragment.arguments);
  }

  /** Emits held-back tool call events and returns the finished choice. */
  finish(events: ChatStreamEvent[]): ChatChoice {
    this.#toolCalls.flush(this.index, events);
    const hasToolCalls = this.#toolCalls.size > 0;
    const message: ChatAssistantMessage = {
      role: "assistant",
      content:
        this.#contentParts.length > 0 ? this.#contentParts.join("") : hasToolCalls ? null : "",
    };
    if (this.#reasoningParts.length > 0) message.reasoning = this.#reasoningParts.join("");
    if (hasToolCalls) message.tool_calls = this.#toolCalls.toToolCalls();
    if (this.#refusalParts.length > 0) message.refusal = this.#refusalParts.join("");
    if (this.#functionCall) {
      message.function_call = {
        name: this.#functionCall.name,
        arguments: this.#functionCall.argumentParts.join(""),
      };
      if (message.content === "") message.content = null;
    }
    return { index: this.index, message, finish_reason: this.finishReason ?? null };
  }
}

/** Reasoning text from `reasoning_content` (DeepSeek style) or `reasoning` (OpenRouter style), never both. */
function readReasoning(delta: Record<string, unknown>): string | undefined {
  const content = delta.reasoning_content;
  if (typeof content === "string" && content !== "") return content;
  const reasoning = delta.reasoning;
  if (typeof reasoning === "string" && reasoning !== "") return reasoning;
  return undefined;
}
