import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { z } from "zod";
import type { RunState } from "../../../src/agent/durable/run-state.js";
import type { ModelMessage } from "../../../src/agent/model-message.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../../src/simulators/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";

/**
 * An in-memory callback list with a read-only `list_callbacks` (`readOnly`) and a
 * destructive `delete_callbacks` (needs approval) that records every
 * execution, so a test can count deletions.
 */
export function callbackTools(ids: readonly string[] = ["cb-1", "cb-2", "cb-3"]) {
  const remaining = new Set(ids);
  const deletions: string[][] = [];
  const listCallbacks = defineTool({
    name: "list_callbacks",
    description: "Lists the registered callbacks.",
    parameters: z.object({}),
    readOnly: true,
    execute: () => ({ callbacks: [...remaining] }),
  });
  const deleteCallbacks = defineTool({
    name: "delete_callbacks",
    description: "Deletes callbacks by id.",
    parameters: z.object({ ids: z.array(z.string()).min(1), token: z.string().optional() }),
    needsApproval: true,
    execute: ({ ids: toDelete }) => {
      deletions.push(toDelete);
      for (const id of toDelete) remaining.delete(id);
      return { deleted: toDelete.length };
    },
  });
  return { tools: [listCallbacks, deleteCallbacks], deletions, remaining };
}

/** A call of `list_callbacks` and one of `delete_callbacks`, in one answer. */
export const listAndDelete = {
  toolCalls: [
    { name: "list_callbacks", arguments: {}, id: "call_list" },
    { name: "delete_callbacks", arguments: { ids: ["cb-1", "cb-2"] }, id: "call_delete" },
  ],
};

/**
 * Call at module level: returns a function making temporary directories,
 * each removed after the test that made it.
 */
export function useTemporaryDirectories(): () => Promise<string> {
  const created: string[] = [];
  afterEach(async () => {
    await Promise.all(created.splice(0).map((path) => rm(path, { recursive: true, force: true })));
  });
  return async () => {
    const directory = await mkdtemp(join(tmpdir(), "switchyard-runs-"));
    created.push(directory);
    return directory;
  };
}

/** The tool messages of a conversation, by tool call id, parsed as JSON when they are. */
export function toolMessagesById(messages: readonly ModelMessage[]): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  for (const message of messages) {
    if (message.role !== "tool") continue;
    try {
      found[message.tool_call_id] = JSON.parse(message.content);
    } catch {
      found[message.tool_call_id] = message.content;
    }
  }
  return found;
}

/** The state with a change applied to a deep copy. */
export function changed(state: RunState, change: (copy: RunState) => void): RunState {
  const copy = structuredClone(state);
  change(copy);
  return copy;
}

/**
 * Call at module level: a messaging simulator whose questions nobody
 * answers unless a test does, and an orders simulator, started before the
 * file's tests, reset before each and closed after all.
 */
export function useMessagingAndOrders(): {
  readonly messaging: MessagingSimulator;
  readonly orders: OrdersSimulator;
} {
  const simulators = {} as { messaging: MessagingSimulator; orders: OrdersSimulator };
  beforeAll(async () => {
    [simulators.messaging, simulators.orders] = await Promise.all([
      startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
      startOrdersSimulator(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([simulators.messaging.close(), simulators.orders.close()]);
  });
  beforeEach(() => {
    simulators.messaging.reset();
    simulators.orders.reset();
  });
  return simulators;
}
