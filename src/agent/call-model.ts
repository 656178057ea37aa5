import type { ChatCompletion, ChatRequest } from "../clients/reasoner/chat-types.js";
import { abortable } from "./abortable.js";
import type { AgentEventSink } from "./agent-events.js";
import type { Model } from "./model.js";

/** How the loop calls the model: one answer, or a stream whose deltas become events. */
export type ModelCallMode = "complete" | "stream";

/**
 * One model call. In `stream` mode the text and reasoning deltas of the
 * first choice are emitted as they come, and the assembled answer returned.
 * Rejects as soon as `signal` fires, even if the model ignores it.
 */
export async function callModel(options: {
  model: Model;
  request: ChatRequest;
  mode: ModelCallMode;
  signal: AbortSignal;
  stepNumber: number;
  emit: AgentEventSink;
}): Promise<ChatCompletion> {
  const { model, request, signal, stepNumber, emit } = options;
  if (options.mode === "complete") return abortable(model.complete(request, { signal }), signal);

  const stream = model.stream(request, { signal });
  const iterator = stream[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await abortable(iterator.next(), signal);
      if (next.done) break;
      const event = next.value;
      if (event.type === "text-delta" && event.choiceIndex === 0) {
        emit({ type: "text-delta", stepNumber, delta: event.delta });
      } else if (event.type === "reasoning-delta" && event.choiceIndex === 0) {
        emit({ type: "reasoning-delta", stepNumber, delta: event.delta });
      }
    }
  } catch (error) {
    // Release the stream (and its connection) without waiting on it.
    Promise.resolve(iterator.return?.()).catch(() => {});
    throw error;
  }
  return abortable(stream.finalCompletion(), signal);
}
