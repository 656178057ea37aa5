import { abortable, abortReason } from "../agent/abortable.js";
import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStream,
  ModelStreamEvent,
} from "../agent/model.js";
import type { AssistantModelMessage, ModelToolCall } from "../agent/model-message.js";
import {
  checkScriptedAnswerFields,
  type ScriptedAnswer,
  scriptedArgumentText,
  scriptedText,
} from "../internal/scripted-answer.js";

export type { ScriptedAnswer, ScriptedToolCall } from "../internal/scripted-answer.js";

/** How a scripted answer's text and arguments are cut when streamed, when the script says. */
interface StreamPieces {
  text: readonly string[] | undefined;
  /** Per tool call, in order. */
  arguments: ReadonlyArray<readonly string[] | undefined>;
}

/** A scripted model error: the call rejects with `error`, as a client would after its retries. */
export interface ScriptedFailure {
  error: unknown;
}

/** What a function step is given besides the request. */
export interface ScriptedStepContext {
  /** The call's signal; the model also stops waiting on its own when it fires. */
  signal: AbortSignal | undefined;
  /** 1 for the first request. */
  requestNumber: number;
}

/**
 * One scripted model call: an answer shorthand, a whole `chat.completion`,
 * a failure, or a function that inspects the request and returns one of them.
 */
export type ScriptedStep =
  | ScriptedAnswer
  | ModelResponse
  | ScriptedFailure
  | ((
      request: ModelRequest,
      context: ScriptedStepContext,
    ) => ScriptedAnswer | ModelResponse | Promise<ScriptedAnswer | ModelResponse>);

/**
 * A `Model` that answers from a script instead of a network: one step per
 * call, in order, for `complete()` and `stream()` alike. Records every
 * request it receives, as received. A call past the end of the script
 * rejects with an error saying so.
 *
 * @example
 * const model = new ScriptedModel([
 *   { toolCalls: [{ name: "list_orders", arguments: { limit: 5 } }] },
 *   (request) => ({ text: `Saw ${request.messages.length} messages` }),
 * ]);
 */
export class ScriptedModel implements Model {
  /** Every request received, in order. */
  readonly requests: ModelRequest[] = [];
  readonly #steps: readonly ScriptedStep[];
  readonly #modelName: string;

  constructor(steps: readonly ScriptedStep[], options: { model?: string } = {}) {
    this.#steps = [...steps];
    this.#modelName = options.model ?? "scripted-model";
  }

  /** Steps not used yet. */
  get remaining(): number {
    return this.#steps.length - this.requests.length;
  }

  complete(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    return this.#answer(request, options.signal).then(({ completion }) => completion);
  }

  stream(request: ModelRequest, options: ModelCallOptions = {}): ModelStream {
    const signal = options.signal;
    const answered = this.#answer(request, signal);
    const completion = answered.then((answer) => answer.completion);
    // Marked handled here; whoever iterates or asks for the final completion still sees the rejection.
    completion.catch(() => {});
    return {
      finalCompletion: () => completion,
      async *[Symbol.asyncIterator]() {
        const { completion: whole, pieces } = await answered;
        for (const event of streamEvents(whole, pieces)) {
          if (signal?.aborted) throw abortReason(signal);
          yield event;
        }
      },
    };
  }

  async #answer(
    request: ModelRequest,
    signal: AbortSignal | undefined,
  ): Promise<{ completion: ModelResponse; pieces?: StreamPieces }> {
    this.requests.push(request);
    const requestNumber = this.requests.length;
    const step = this.#steps[requestNumber - 1];
    if (step === undefined) {
      throw new Error(
        `ScriptedModel: request ${requestNumber} came in, but the script has only ${this.#steps.length} step(s); add a step for it.`,
      );
    }
    const pending: Promise<ScriptedAnswer | ModelResponse | ScriptedFailure> =
      typeof step === "function"
        ? Promise.resolve(step(request, { signal, requestNumber }))
        : Promise.resolve(step);
    const answer = await (signal ? abortable(pending, signal) : pending);
    if (isCompletion(answer)) return { completion: answer };
    if ("error" in answer) throw answer.error;
    checkScriptedAnswerFields(answer, `ScriptedModel, request ${requestNumber}`);
    const calls = answer.toolCalls ?? [];
    return {
      completion: this.#toCompletion(answer, requestNumber),
      pieces: { text: answer.textPieces, arguments: calls.map((call) => call.argumentPieces) },
    };
  }

  #toCompletion(answer: ScriptedAnswer, requestNumber: number): ModelResponse {
    const toolCalls: ModelToolCall[] = (answer.toolCalls ?? []).map((call, index) => ({
      id: call.id ?? `call_${requestNumber}_${index}`,
      type: "function",
      function: {
        name: call.name,
        arguments: scriptedArgumentText(call),
      },
    }));
    const legacyCall =
      answer.legacyFunctionCall === true && toolCalls.length === 1 ? toolCalls[0] : undefined;
    const message: AssistantModelMessage = {
      role: "assistant",
      content: scriptedText(answer),
      ...(legacyCall
        ? { function_call: { ...legacyCall.function } }
        : toolCalls.length > 0
          ? { tool_calls: toolCalls }
          : {}),
      ...(answer.reasoning !== undefined ? { reasoning: answer.reasoning } : {}),
    };
    return {
      id: `scripted-${requestNumber}`,
      object: "chat.completion",
      created: 0,
      model: this.#modelName,
      choices: [
        {
          index: 0,
          message,
          finish_reason:
            answer.finishReason ??
            (legacyCall ? "function_call" : toolCalls.length > 0 ? "tool_calls" : "stop"),
        },
      ],
      ...(answer.usage ? { usage: answer.usage } : {}),
    };
  }
}

function isCompletion(
  answer: ScriptedAnswer | ModelResponse | ScriptedFailure,
): answer is ModelResponse {
  return (
    (answer as ModelResponse).object === "chat.completion" ||
    Array.isArray((answer as ModelResponse).choices)
  );
}

/**
 * The normalized events a streaming client would emit for this answer: text
 * in word-sized pieces, each call in two, or in the pieces the script gave.
 */
function* streamEvents(
  completion: ModelResponse,
  scripted: StreamPieces | undefined,
): Generator<ModelStreamEvent> {
  for (const [position, choice] of completion.choices.entries()) {
    const choiceIndex = choice.index ?? position;
    const { reasoning, content, tool_calls: toolCalls = [] } = choice.message;
    for (const delta of pieces(reasoning ?? ""))
      yield { type: "reasoning-delta", choiceIndex, delta };
    for (const delta of scripted?.text ?? pieces(content ?? "")) {
      yield { type: "text-delta", choiceIndex, delta };
    }
    for (const [toolCallIndex, call] of toolCalls.entries()) {
      const { name, arguments: args } = call.function;
      const middle = Math.ceil(args.length / 2);
      const base = {
        type: "tool-call-delta",
        choiceIndex,
        toolCallIndex,
        id: call.id,
        name,
      } as const;
      const argumentPieces = scripted?.arguments[toolCallIndex] ?? [
        args.slice(0, middle),
        ...(middle < args.length ? [args.slice(middle)] : []),
      ];
      for (const argumentsDelta of argumentPieces) yield { ...base, argumentsDelta };
    }
    yield {
      type: "finish",
      choiceIndex,
      finishReason: choice.finish_reason ?? "stop",
      usage: completion.usage,
    };
  }
}

function pieces(text: string): string[] {
  return text.match(/\s+(?:\S+\s*)?|\S+\s*/g) ?? [];
}
