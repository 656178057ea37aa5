/**
 * One function call a scripted model makes: the same shape for
 * `ScriptedModel` (`switchyard-agents/testing`) and the reasoner simulator's
 * scenarios (`switchyard-agents/simulators`).
 */
export interface ScriptedToolCall {
  /** Name of an offered tool. */
  name: string;
  /**
   * Arguments object (sent as JSON), or the raw argument text sent as-is
   * (even broken JSON).
   * @default {}
   */
  arguments?: unknown;
  /** Call id. @default a new id (`call_...`) */
  id?: string;
  /** Exact fragments to stream the argument text in; their concatenation is the argument text. */
  argumentPieces?: string[];
}

/**
 * What a scripted model answers to one request; fields combine. The same
 * shape for `ScriptedModel` and the reasoner simulator's scenarios.
 *
 * @example
 * { text: "Two callbacks point at staging.", reasoning: "The list shows them." }
 * { toolCalls: [{ name: "list_orders", arguments: { limit: 5 } }] }
 */
export interface ScriptedAnswer {
  /** Answer text; omitted (or `null`) with tool calls. */
  text?: string | null;
  /** Exact fragments to stream the text in; their concatenation is the text when `text` is omitted. */
  textPieces?: string[];
  /** Reasoning text, streamed before the answer (the simulator: where its stream style carries reasoning). */
  reasoning?: string;
  /** Function calls, in order. */
  toolCalls?: ScriptedToolCall[];
  /** Tokens the call reports using. @default the simulator's estimate; none for `ScriptedModel` */
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    [key: string]: unknown;
  };
  /**
   * Answer the single tool call the legacy way, as `function_call` (before
   * `tool_calls` existed), finishing with `function_call`.
   */
  legacyFunctionCall?: boolean;
  /** @default "tool_calls" when there are tool calls, else "stop" (`function_call` for a legacy call) */
  finishReason?: string;
}

/** A scripted answer's text: `text`, else its `textPieces` joined, else `null`. */
export function scriptedText(answer: ScriptedAnswer): string | null {
  return answer.text ?? answer.textPieces?.join("") ?? null;
}

/**
 * A scripted call's argument text: `arguments` as given (text) or as JSON,
 * else its `argumentPieces` joined, else `{}`.
 */
export function scriptedArgumentText(call: ScriptedToolCall): string {
  if (typeof call.arguments === "string") return call.arguments;
  if (call.arguments === undefined && call.argumentPieces) return call.argumentPieces.join("");
  return JSON.stringify(call.arguments ?? {});
}

const scriptedAnswerFields: readonly (keyof ScriptedAnswer)[] = [
  "text",
  "textPieces",
  "reasoning",
  "toolCalls",
  "usage",
  "legacyFunctionCall",
  "finishReason",
];

/**
 * Throws when a scripted answer has a field the shape does not know (a
 * misspelt one, or `content` for `text`), which would otherwise be ignored.
 */
export function checkScriptedAnswerFields(answer: object, where: string): void {
  const unknown = Object.keys(answer).filter(
    (key) => !scriptedAnswerFields.includes(key as keyof ScriptedAnswer),
  );
  if (unknown.length === 0) return;
  throw new Error(
    `${where}: a ScriptedAnswer has no field ${unknown.map((key) => JSON.stringify(key)).join(", ")}; its fields are ${scriptedAnswerFields.join(", ")} (the answer's text is "text").`,
  );
}
