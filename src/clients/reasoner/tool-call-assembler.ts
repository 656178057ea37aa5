import type { ChatStreamEvent, ChatToolCall } from "./chat-types.js";
import { generateToolCallId } from "./generate-tool-call-id.js";
import { isPlainObject } from "./validation-checks.js";

interface ToolCallState {
  /** Position in the answer's `tool_calls`, in order of first appearance. */
  position: number;
  /** The id the provider sent, if any. */
  providerId: string | undefined;
  /** The id shown to the caller; fixed by the first event about this call. */
  id: string | undefined;
  name: string;
  argumentParts: string[];
  /** How many of `argumentParts` events have carried so far. */
  emittedParts: number;
}

/**
 * Rebuilds the tool calls of one choice from streamed fragments, whatever
 * the provider's habits: calls split over many chunks or whole in one,
 * `index` missing or not starting at 0, id/type/name repeated on every
 * fragment. A fragment is placed by its `index` when it has one (a new id on
 * a known index starts a new call), else by its `id`, else it continues the
 * last call. Events wait until a call has a name.
 */
export class ToolCallAssembler {
  readonly #calls: ToolCallState[] = [];
  readonly #byIndex = new Map<number, ToolCallState>();
  readonly #byId = new Map<string, ToolCallState>();
  #last: ToolCallState | undefined;

  /** How many calls have started. */
  get size(): number {
    return this.#calls.length;
  }

  /** Takes one entry of `delta.tool_calls`, adding its events to `events`. */
  accept(fragment: unknown, choiceIndex: number, events: ChatStreamEvent[]): void {
    if (!isPlainObject(fragment)) return;
    const index = typeof fragment.index === "number" ? fragment.index : undefined;
    const id = typeof fragment.id === "string" && fragment.id !== "" ? fragment.id : undefined;
    const call = this.#place(index, id);
    if (id !== undefined && call.providerId === undefined) {
      call.providerId = id;
      this.#byId.set(id, call);
    }
    const fn = fragment.function;
    if (isPlainObject(fn)) {
      // Providers that repeat the name on every fragment must not double it.
      if (call.name === "" && typeof fn.name === "string") call.name = fn.name;
      appendArguments(call.argumentParts, fn.arguments);
    }
    this.#last = call;
    if (call.name !== "") this.#emit(call, choiceIndex, events);
  }

  /** Emits what is still held back (calls that never got a name). */
  flush(choiceIndex: number, events: ChatStreamEvent[]): void {
    for (const call of this.#calls) this.#emit(call, choiceIndex, events);
  }

  /** The assembled calls, in order; call after {@link flush}. */
  toToolCalls(): ChatToolCall[] {
    return this.#calls.map((call) => ({
      id: call.id ?? call.providerId ?? generateToolCallId(),
      type: "function",
      function: { name: call.name, arguments: call.argumentParts.join("") },
    }));
  }

  #place(index: number | undefined, id: string | undefined): ToolCallState {
    if (index !== undefined) {
      let call = this.#byIndex.get(index);
      if (call && id !== undefined && call.providerId !== undefined && call.providerId !== id) {
        call = undefined;
      }
      if (!call) {
        call = this.#create();
        this.#byIndex.set(index, call);
      }
      return call;
    }
    if (id !== undefined) return this.#byId.get(id) ?? this.#create();
    return this.#last ?? this.#create();
  }

  #create(): ToolCallState {
    const call: ToolCallState = {
      position: this.#calls.length,
      providerId: undefined,
      id: undefined,
      name: "",
      argumentParts: [],
      emittedParts: 0,
    };
    this.#calls.push(call);
    return call;
  }

  #emit(call: ToolCallState, choiceIndex: number, events: ChatStreamEvent[]): void {
    const first = call.id === undefined;
    if (first) call.id = call.providerId ?? generateToolCallId();
    const parts = call.argumentParts;
    if (!first && call.emittedParts === parts.length) return;
    const argumentsDelta =
      parts.length - call.emittedParts === 1
        ? parts[call.emittedParts]!
        : parts.slice(call.emittedParts).join("");
    call.emittedParts = parts.length;
    events.push({
      type: "tool-call-delta",
      choiceIndex,
      toolCallIndex: call.position,
      id: call.id!,
      name: call.name,
      argumentsDelta,
    });
  }
}

/**
 * Adds one streamed fragment of a call's arguments: JSON text as it comes,
 * or an object (some providers send one) encoded as JSON text.
 */
export function appendArguments(parts: string[], fragment: unknown): void {
  if (typeof fragment === "string") {
    if (fragment !== "") parts.push(fragment);
  } else if (isPlainObject(fragment)) {
    parts.push(JSON.stringify(fragment));
  }
}
