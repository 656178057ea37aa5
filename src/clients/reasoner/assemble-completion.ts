import type { ChatCompletion, ChatStreamEvent, ChatUsage } from "./chat-types.js";
import { ChoiceAssembler } from "./choice-assembler.js";
import { findUsage } from "./normalize-usage.js";
import {
  describeProviderError,
  type ProviderErrorReport,
  readProviderError,
} from "./read-provider-error.js";
import type { SseMessage } from "./read-sse-events.js";
import { StreamError, type StreamErrorKind } from "./stream-error.js";
import { isPlainObject } from "./validation-checks.js";

/** Where the stream came from, and how to scrub provider text before it goes into an error. */
export interface StreamSource {
  method: string;
  url: string;
  redact(text: string): string;
  redactValue<T>(value: T): T;
}

/** Beyond this, lines outside events that never read as JSON are dropped. */
const maxOutsideText = 64 * 1024;

const ownKeys = new Set(["id", "object", "created", "model", "choices", "usage", "error"]);

/**
 * Turns the events of a `chat.completion.chunk` stream into normalized
 * {@link ChatStreamEvent}s and, at the end, the same `chat.completion` a
 * non-streamed request returns. Usage may come on the finish chunk or in a
 * later chunk with `choices: []` or no `choices`; `finish` events are
 * therefore given only at the end, the usage (of the whole answer) on the
 * last of them.
 */
export class ChatCompletionAssembler {
  readonly #source: StreamSource;
  readonly #choices = new Map<number, ChoiceAssembler>();
  /** The provider's own top-level fields; null-prototype, since the keys are the provider's. */
  readonly #extras: Record<string, unknown> = Object.create(null);
  #id: string | undefined;
  #created: number | undefined;
  #model: string | undefined;
  #usage: ChatUsage | undefined;
  /** Lines outside any event, gathered until they read as JSON. */
  #outsideLines: string[] = [];
  /** The last text outside any event that was not a provider error. */
  #strayText: string | undefined;
  /** `data: [DONE]` came: the provider said the answer is complete. */
  #done = false;

  constructor(source: StreamSource) {
    this.#source = source;
  }

  /**
   * Takes one server-sent event, adding its events to `events`. Returns true
   * for `data: [DONE]`. Throws a StreamError for an error event or data that
   * is not a chunk.
   */
  accept(message: SseMessage, events: ChatStreamEvent[]): boolean {
    const { data } = message;
    if (message.outsideEvent) {
      this.#acceptOutsideLine(data);
      return false;
    }
    this.#outsideLines = [];
    if (message.event === "error") throw this.#errorEvent(data);
    if (data.length < 16) {
      const trimmed = data.trim();
      if (trimmed === "[DONE]") {
        this.#done = true;
        return true;
      }
      if (trimmed === "") return false;
    } else if (data.charCodeAt(0) <= 32 && data.trim() === "") {
      return false;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch (error) {
      // Named events other than chunks (e.g. `event: ping`) may carry plain text.
      if (message.event !== undefined && message.event !== "message") return false;
      if (message.truncated) {
        throw this.#error("incomplete", "the body ended in the middle of an event", error);
      }
      throw this.#error("malformed", `data is not JSON: ${this.#snippet(data)}`, error);
    }
    if (!isPlainObject(chunk)) {
      throw this.#error("malformed", `data is not a chunk object: ${this.#snippet(data)}`);
    }
    const reported = readProviderError(chunk);
    if (reported) throw this.#providerError(reported);
    this.#readMetadata(chunk);
    const { choices } = chunk;
    if (Array.isArray(choices)) {
      for (const choice of choices) {
        if (!isPlainObject(choice)) continue;
        const index = typeof choice.index === "number" ? choice.index : 0;
        let assembler = this.#choices.get(index);
        if (!assembler) {
          assembler = new ChoiceAssembler(index);
          this.#choices.set(index, assembler);
        }
        assembler.accept(choice, events);
      }
    } else if (choices !== undefined && choices !== null) {
      throw this.#error("malformed", `choices is not an array: ${this.#snippet(data)}`);
    }
    return false;
  }

  /**
   * The assembled answer, once the body ended or `[DONE]` came; adds the
   * last tool call events and one `finish` event per choice that has a
   * `finish_reason` to `events` (the usage on the last of them).
   *
   * A choice without a `finish_reason` is complete when `[DONE]` came (some
   * OpenAI-compatible endpoints never send one): its `finish_reason` is
   * `null` and it gets no `finish` event. Without `[DONE]` the body was cut,
   * and an `incomplete` StreamError is thrown.
   */
  finish(events: ChatStreamEvent[]): ChatCompletion {
    const assemblers = [...this.#choices.values()].sort((left, right) => left.index - right.index);
    if (assemblers.length === 0) {
      throw this.#error("incomplete", "the body ended before any choice arrived");
    }
    const unfinished = assemblers.filter((assembler) => assembler.finishReason === undefined);
    if (unfinished.length > 0 && !this.#done) {
      const which = unfinished.map((assembler) => assembler.index).join(", ");
      throw this.#error("incomplete", `the body ended before a finish_reason for choice ${which}`);
    }
    const choices = assemblers.map((assembler) => assembler.finish(events));
    const finished = assemblers.filter((assembler) => assembler.finishReason !== undefined);
    finished.forEach((assembler, position) => {
      events.push({
        type: "finish",
        choiceIndex: assembler.index,
        finishReason: assembler.finishReason!,
        usage: position === finished.length - 1 ? this.#usage : undefined,
      });
    });
    const completion: ChatCompletion = {
      ...this.#extras,
      id: this.#id ?? "",
      object: "chat.completion",
      created: this.#created ?? Math.floor(Date.now() / 1000),
      model: this.#model ?? "",
      choices,
    };
    if (this.#usage) completion.usage = this.#usage;
    return completion;
  }

  #readMetadata(chunk: Record<string, unknown>): void {
    if (this.#id === undefined && typeof chunk.id === "string") this.#id = chunk.id;
    if (this.#created === undefined && typeof chunk.created === "number") {
      this.#created = chunk.created;
    }
    if (this.#model === undefined && typeof chunk.model === "string") this.#model = chunk.model;
    this.#usage = findUsage(chunk) ?? this.#usage;
    for (const key in chunk) {
      if (!ownKeys.has(key) && !Object.hasOwn(this.#extras, key)) this.#extras[key] = chunk[key];
    }
  }

  #errorEvent(data: string): StreamError {
    let parsed: unknown = data;
    try {
      parsed = JSON.parse(data);
    } catch {
      // A plain-text error event: its text is the message.
    }
    return this.#providerError(readProviderError(parsed) ?? describeProviderError(parsed), parsed);
  }

  /**
   * Takes a line outside any event. Lines are gathered until they read as
   * JSON (an error may be printed over several lines); a provider error
   * among them is thrown. Other text is kept to explain a stream that then
   * ends early.
   */
  #acceptOutsideLine(line: string): void {
    if (this.#outsideLines.length === 0 && !/^\s*[[{]/.test(line)) {
      this.#strayText = line;
      return;
    }
    this.#outsideLines.push(line);
    const text = this.#outsideLines.join("\n");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (text.length > maxOutsideText) this.#outsideLines = [];
      return;
    }
    this.#outsideLines = [];
    const reported = readProviderError(value);
    if (reported) throw this.#providerError(reported);
    this.#strayText = text;
  }

  #providerError(report: ProviderErrorReport, body: unknown = report.body): StreamError {
    return new StreamError({
      kind: "provider_error",
      method: this.#source.method,
      url: this.#source.url,
      detail: this.#source.redact(report.message === "" ? "(empty error event)" : report.message),
      code: report.code,
      type: report.type,
      body: this.#scrub(body),
    });
  }

  #error(kind: StreamErrorKind, detail: string, cause?: unknown): StreamError {
    // What the provider wrote outside any event may be the only word on why.
    const stray = this.#outsideLines.length > 0 ? this.#outsideLines.join("\n") : this.#strayText;
    const said =
      kind === "incomplete" && stray !== undefined
        ? `${detail}; it also sent, outside any event: ${this.#snippet(stray)}`
        : detail;
    return new StreamError(
      { kind, method: this.#source.method, url: this.#source.url, detail: said },
      cause === undefined ? undefined : { cause },
    );
  }

  #snippet(data: string): string {
    const text = data.length > 200 ? `${data.slice(0, 200)}...` : data;
    return this.#source.redact(text);
  }

  #scrub(value: unknown): unknown {
    return this.#source.redactValue(value);
  }
}
