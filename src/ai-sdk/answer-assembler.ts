import type { ModelStreamEvent, ModelUsage } from "../agent/model.js";
import type { ModelToolCall } from "../agent/model-message.js";
import type { ChatCompletion } from "../clients/reasoner/chat-types.js";
import type {
  SpecContent,
  SpecFinishReason,
  SpecStreamPart,
  SpecUsage,
} from "./ai-sdk-language-model.js";
import { toFinishReason } from "./to-finish-reason.js";
import { toModelUsage } from "./to-model-usage.js";

/** A tool call being put together, from its streamed input or whole. */
interface ToolCallDraft {
  /** Position in the answer's `tool_calls`, from 0. */
  index: number;
  id: string;
  name: string;
  inputParts: string[];
  /** The whole input of a `tool-call` part, which wins over the streamed pieces. */
  input: string | undefined;
}

/** The model that answered, for the completion's `model` and `id`. */
export interface AnswerOrigin {
  modelId: string;
  /** Makes the completion's id when the provider sends none. */
  createId: () => string;
}

/**
 * Puts one answer together from the specification's parts, streamed
 * ({@link AnswerAssembler.accept}) or whole ({@link AnswerAssembler.acceptContent}),
 * into a `chat.completion` with one choice. Text and reasoning are kept as
 * lists of pieces and joined once. Tool calls keep the order they were
 * started in; a call streamed as `tool-input-*` parts and then sent whole
 * as a `tool-call` part is one call. Calls the provider ran itself
 * (`providerExecuted`), sources, files and the provider's own parts are not
 * the agent's and are left out.
 */
export class AnswerAssembler {
  readonly #origin: AnswerOrigin;
  readonly #textParts: string[] = [];
  readonly #reasoningParts: string[] = [];
  readonly #toolCalls = new Map<string, ToolCallDraft>();
  /** Ids of streamed calls the provider runs itself, whose input is not the agent's. */
  readonly #providerCalls = new Set<string>();
  #id: string | undefined;
  #created: number | undefined;
  #model: string | undefined;
  #finishReason: string | undefined;
  #usage: ModelUsage | undefined;

  constructor(origin: AnswerOrigin) {
    this.#origin = origin;
  }

  /**
   * Takes one streamed part, returning the events it gives. An `error`
   * part is not taken: the caller ends the stream with it.
   */
  accept(part: SpecStreamPart): ModelStreamEvent[] {
    switch (part.type) {
      case "text-delta":
        if (part.delta === "") return [];
        this.#textParts.push(part.delta);
        return [{ type: "text-delta", choiceIndex: 0, delta: part.delta }];
      case "reasoning-delta":
        if (part.delta === "") return [];
        this.#reasoningParts.push(part.delta);
        return [{ type: "reasoning-delta", choiceIndex: 0, delta: part.delta }];
      case "tool-input-start": {
        if (part.providerExecuted) {
          this.#providerCalls.add(part.id);
          return [];
        }
        const draft = this.#draft(part.id, part.toolName);
        return [this.#delta(draft, "")];
      }
      case "tool-input-delta": {
        const draft = this.#toolCalls.get(part.id);
        if (!draft || part.delta === "") return [];
        draft.inputParts.push(part.delta);
        return [this.#delta(draft, part.delta)];
      }
      case "tool-call": {
        if (part.providerExecuted || this.#providerCalls.has(part.toolCallId)) return [];
        const streamed = this.#toolCalls.has(part.toolCallId);
        const draft = this.#draft(part.toolCallId, part.toolName);
        draft.input = part.input;
        return streamed ? [] : [this.#delta(draft, part.input)];
      }
      case "response-metadata":
        this.#readMetadata(part);
        return [];
      case "finish":
        this.#finish(part.finishReason, part.usage);
        return [
          {
            type: "finish",
            choiceIndex: 0,
            finishReason: this.#finishReason ?? "unknown",
            usage: this.#usage,
          },
        ];
      default:
        return [];
    }
  }

  /** Takes a whole answer's content, finish reason, usage and response metadata. */
  acceptContent(
    content: readonly SpecContent[],
    finishReason: SpecFinishReason,
    usage: SpecUsage,
    response: { id?: string; timestamp?: Date; modelId?: string } | undefined,
  ): void {
    for (const part of content) {
      if (part.type === "text") this.#textParts.push(part.text);
      else if (part.type === "reasoning") this.#reasoningParts.push(part.text);
      else if (part.type === "tool-call" && !part.providerExecuted) {
        this.#draft(part.toolCallId, part.toolName).input = part.input;
      }
    }
    if (response) this.#readMetadata(response);
    this.#finish(finishReason, usage);
  }

  /** The answer as a `chat.completion`; call once the answer has finished. */
  completion(): ChatCompletion {
    const text = this.#textParts.join("");
    const toolCalls: ModelToolCall[] = [...this.#toolCalls.values()].map((draft) => ({
      id: draft.id,
      type: "function",
      function: { name: draft.name, arguments: draft.input ?? draft.inputParts.join("") },
    }));
    const reasoning = this.#reasoningParts.join("");
    return {
      id: this.#id ?? this.#origin.createId(),
      object: "chat.completion",
      created: this.#created ?? Math.floor(Date.now() / 1000),
      model: this.#model ?? this.#origin.modelId,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: text === "" && toolCalls.length > 0 ? null : text,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            ...(reasoning !== "" ? { reasoning } : {}),
          },
          finish_reason: this.#finishReason ?? null,
        },
      ],
      ...(this.#usage ? { usage: this.#usage } : {}),
    };
  }

  #draft(id: string, name: string): ToolCallDraft {
    let draft = this.#toolCalls.get(id);
    if (!draft) {
      draft = { index: this.#toolCalls.size, id, name, inputParts: [], input: undefined };
      this.#toolCalls.set(id, draft);
    }
    return draft;
  }

  #delta(draft: ToolCallDraft, argumentsDelta: string): ModelStreamEvent {
    return {
      type: "tool-call-delta",
      choiceIndex: 0,
      toolCallIndex: draft.index,
      id: draft.id,
      name: draft.name,
      argumentsDelta,
    };
  }

  #readMetadata(metadata: { id?: string; timestamp?: Date; modelId?: string }): void {
    if (metadata.id !== undefined) this.#id = metadata.id;
    if (metadata.timestamp !== undefined) {
      this.#created = Math.floor(metadata.timestamp.getTime() / 1000);
    }
    if (metadata.modelId !== undefined) this.#model = metadata.modelId;
  }

  #finish(reason: SpecFinishReason, usage: SpecUsage): void {
    this.#finishReason = toFinishReason(reason);
    this.#usage = toModelUsage(usage);
  }
}
