import type { RunState } from "../../src/agent/durable/run-state.js";

/** A valid run state that ended, with what the test changes. */
export function endedRunState(runId: string, overrides: Partial<RunState> = {}): RunState {
  return {
    format: "switchyard.run-state",
    version: 1,
    runId,
    revision: 1,
    status: "completed",
    createdAt: "2025-05-12T09:30:00.000Z",
    updatedAt: "2025-05-12T09:30:00.000Z",
    maxSteps: 10,
    stepCount: 1,
    usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    messages: [
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi" },
    ],
    pendingCalls: [],
    ...overrides,
  };
}

/** A run waiting for the answer to one approval question (interaction `i_1`). */
export function suspendedRunState(runId: string, overrides: Partial<RunState> = {}): RunState {
  return endedRunState(runId, {
    status: "suspended",
    messages: [
      { role: "user", content: "delete cb-1" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "delete_callbacks", arguments: '{"ids":["cb-1"]}' },
          },
        ],
      },
    ],
    pendingCalls: [
      {
        toolCallId: "call_1",
        toolName: "delete_callbacks",
        rawArguments: '{"ids":["cb-1"]}',
        phase: "awaiting_approval",
        fingerprint: "sha256:00",
        interactionId: "i_1",
      },
    ],
    ...overrides,
  });
}
