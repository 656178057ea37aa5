import { abortable, abortReason } from "./abortable.js";
import type { AgentEventSink } from "./agent-events.js";
import type { Model, ModelCallOptions, ModelRequest, ModelResponse } from "./model.js";
import { neverAborted } from "./never-aborted.js";

/** How the loop calls the model: one answer, or a stream whose deltas become events. */
export type ModelCallMode = "complete" | "stream";

/**
 * One model call. In `stream` mode the text, reasoning and tool-call
 * argument deltas of the first choice are emitted as they come, and the
 * assembled answer returned.
 * Rejects as soon as `signal` fires, even if the model ignores it. The model
 * gets the signal, or no signal when the run has none ({@link neverAborted}).
 */
export async function callModel(options: {
  model: Model;
  request: ModelRequest;
  mode: ModelCallMode;
  signal: AbortSignal;
  stepNumber: number;
  emit: AgentEventSink;
}): Promise<ModelResponse> {
  const { model, request, signal, stepNumber, emit } = options;
  const callOptions: ModelCallOptions = signal === neverAborted ? {} : { signal };
  if (options.mode === "complete") {
    return await abortable(model.complete(request, callOptions), signal);
  }

  const stream = model.stream(request, callOptions);
  const iterator = stream[Symbol.asyncIterator]();
  let reading = true;
  const read = async (): Promise<ModelResponse> => {
    for (;;) {
      const next = await iterator.next();
      // The call has already rejected with the abort: emit nothing more.
      if (signal.aborted) throw abortReason(signal);
      if (next.done) break;
      const event = next.value;
      if (event.type === "text-delta" && event.choiceIndex === 0) {
        emit({ type: "text-delta", stepNumber, delta: event.delta });
      } else if (event.type === "reasoning-delta" && event.choiceIndex === 0) {
        emit({ type: "reasoning-delta", stepNumber, delta: event.delta });
      } else if (event.type === "tool-call-delta" && event.choiceIndex === 0) {
        emit({
          type: "tool-call-delta",
          stepNumber,
          toolCallIndex: event.toolCallIndex,
          toolCallId: event.id,
          toolName: event.name,
          argumentsDelta: event.argumentsDelta,
        });
      }
    }
    reading = false;
    return stream.finalCompletion();
  };
  try {
    // One race with the signal for the whole call, not one per streamed event.
    return await abortable(read(), signal);
  } catch (error) {
    // Release the stream (and its connection) without waiting on it.
    if (reading) Promise.resolve(iterator.return?.()).catch(() => {});
    throw error;
  }
}
