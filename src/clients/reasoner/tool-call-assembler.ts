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
 * fragment, a fresh id on every nameless fragment (Kimi), whole calls all
 * at index 0 without an id (Ollama, some gateways). A fragment is placed by
 * its `index` when it has one, else by its `id`, else it continues the last
 * call; at a known place, a fragment with a name starts a new call when it
 * brings a new id or the call there is already whole, and a nameless one
 * always continues. A call whose arguments never came (or came as `""`) has
 * `{}`. Events wait until a call has a name.
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
    const fn = isPlainObject(fragment.function) ? fragment.function : undefined;
    const name = typeof fn?.name === "string" && fn.name !== "" ? fn.name : undefined;
    const call = this.#place(index, id, name, fn?.arguments);
    if (id !== undefined && call.providerId === undefined) {
      call.providerId = id;
      this.#byId.set(id, call);
    }
    if (fn) {
      // Providers that repeat the name on every fragment must not double it.
      if (call.name === "" && name !== undefined) call.name = name;
      appendArguments(call.argumentParts, fn.arguments);
    }
    this.#last = call;
    if (call.name !== "") this.#emit(call, choiceIndex, events);
  }

  /** Emits what is still held back (calls that never got a name). */
  flush(choiceIndex: number, events: ChatStreamEvent[]): void {
    for (const call of this.#calls) {
      // A call without parameters may get no arguments at all, or only "".
      if (call.argumentParts.length === 0) call.argumentParts.push("{}");
      this.#emit(call, choiceIndex, events);
    }
  }

  /** The assembled calls, in order; call after {@link flush}. */
  toToolCalls(): ChatToolCall[] {
    return this.#calls.map((call) => ({
      id: call.id ?? call.providerId ?? generateToolCallId(),
      type: "function",
      function: { name: call.name, arguments: call.argumentParts.join("") },
    }));
  }

  #place(
    index: number | undefined,
    id: string | undefined,
    name: string | undefined,
    argumentsFragment: unknown,
  ): ToolCallState {
    if (index !== undefined) {
      let call = this.#byIndex.get(index);
      if (call && startsAnotherCall(call, id, name, argumentsFragment)) call = undefined;
      if (!call) {
        call = this.#create();
        this.#byIndex.set(index, call);
      }
      return call;
    }
    if (id !== undefined) {
      const known = this.#byId.get(id);
      if (known) return known;
    }
    const last = this.#last;
    if (last && !startsAnotherCall(last, id, name, argumentsFragment)) return last;
    return this.#create();
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
 * Whether a fragment at the place of `call` begins a new call rather than
 * continuing it. Only a fragment with a name can: a nameless one continues,
 * whatever its id (Kimi gives each fragment a fresh one). A named one is a
 * new call when its id differs from the call's, or, when either has no id,
 * when the call already has complete arguments and the fragment brings more (whole
 * calls sent one after another at index 0); a repeated name with a repeated
 * id, or with the rest of the arguments, continues.
 */
function startsAnotherCall(
  call: ToolCallState,
  id: string | undefined,
  name: string | undefined,
  argumentsFragment: unknown,
): boolean {
  if (name === undefined || call.name === "") return false;
  if (id !== undefined && call.providerId !== undefined) return id !== call.providerId;
  const bringsArguments =
    (typeof argumentsFragment === "string" && argumentsFragment !== "") ||
    isPlainObject(argumentsFragment);
  return bringsArguments && isCompleteJson(call.argumentParts);
}

function isCompleteJson(parts: readonly string[]): boolean {
  // Arguments are an object: text not ending in "}" is not whole yet, and
  // most fragments are told apart without parsing everything so far.
  if (!parts.at(-1)?.trimEnd().endsWith("}")) return false;
  try {
    JSON.parse(parts.join(""));
    return true;
  } catch {
    return false;
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
