import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { RunConflictError } from "../agent/durable/durable-errors.js";
import type { RunQueue } from "../agent/durable/run-queue.js";
import type { RunState, RunStateStatus } from "../agent/durable/run-state.js";
import type { RunStore } from "../agent/durable/run-store.js";

/** A queue under test and the store whose runs it hands out (one object, for a class that is both). */
export interface QueueUnderTest {
  queue: RunQueue;
  store: RunStore;
}

export async function assertConflict(
  promise: Promise<unknown>,
  reason: RunConflictError["reason"],
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof RunConflictError, `expected a RunConflictError, got ${error}`);
    assert.equal(error.reason, reason);
    return true;
  });
}

/** Saves a run `running` under a claim that then expires unrenewed (its holder died). */
export async function saveRunWhoseHolderDied(
  { store, queue }: QueueUnderTest,
  runId: string,
): Promise<void> {
  const leaseMs = 300;
  const dead = await queue.claim(runId, { leaseMs });
  await store.save(runState(runId, { status: "running" }), { expectedRevision: 0, claim: dead });
  await sleep(leaseMs * 3);
}

export function at(minute: number): string {
  return new Date(Date.UTC(2026, 0, 1, 9, minute)).toISOString();
}

/** A running state whose call (`call_1` unless named) is `started`, having spent approval `i_1`. */
export function startedState(runId: string, revision: number, toolCallId = "call_1"): RunState {
  const base = runState(runId, { revision, status: "running" });
  const call = base.pendingCalls[0];
  const message = base.messages[1];
  const asked = message?.role === "assistant" ? message : undefined;
  const toolCall = asked?.tool_calls?.[0];
  if (!call || !asked || !toolCall) throw new Error("the base state has no call");
  return {
    ...base,
    messages: [
      base.messages[0] ?? asked,
      { ...asked, tool_calls: [{ ...toolCall, id: toolCallId }] },
    ],
    pendingCalls: [
      { ...call, toolCallId, phase: "started", approvalId: "run-a.3q2-7wEiRKe8sYdq5Bn0WQ" },
    ],
    usedApprovals: ["run-a.3q2-7wEiRKe8sYdq5Bn0WQ"],
  };
}

/** A valid state waiting for one approval answer, with what the test changes. */
export function runState(
  runId: string,
  overrides: Partial<RunState> & { status?: RunStateStatus } = {},
): RunState {
  return {
    format: "switchyard.run-state",
    version: 1,
    runId,
    revision: 1,
    status: "suspended",
    createdAt: at(0),
    updatedAt: at(0),
    maxSteps: 10,
    stepCount: 1,
    usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
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
        arguments: { ids: ["cb-1"] },
        phase: "awaiting_approval",
        fingerprint: `sha256:${"0".repeat(64)}`,
        interactionId: "i_1",
      },
    ],
    ...overrides,
  };
}
