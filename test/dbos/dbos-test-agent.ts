import { type FleetServices, fleetAgentOptions } from "../../bench/fleet-agent.js";
import type { AgentOptions } from "../../src/agent/agent-options.js";
import type { ModelRequest } from "../../src/agent/model.js";
import { ScriptedModel } from "../../src/testing/index.js";

/** Where the test agent's services are (the simulators'): the fleet agent's. */
export type DbosTestServices = FleetServices;

/**
 * A model that reads the conversation instead of a fixed order (a process
 * that recovers a run starts with a fresh one): asked to delete callback
 * `<id>`, it calls `delete_callbacks` with it; once the tool answered, it
 * says it is done. A task saying it "cannot be answered" fails the call.
 */
export function conversationModel(): ScriptedModel {
  const step = (request: ModelRequest) => {
    if (request.messages.some((message) => message.role === "tool")) return { text: "Done." };
    const task = request.messages.find((message) => message.role === "user");
    if (String(task?.content).includes("cannot be answered")) {
      throw new Error("the model is out of service");
    }
    const id = String(task?.content ?? "").match(/callback ([0-9a-f-]+)/)?.[1] ?? "none";
    return { toolCalls: [{ name: "delete_callbacks", arguments: { ids: [id] } }] };
  };
  return new ScriptedModel(Array.from({ length: 1_000 }, () => step));
}

/**
 * The options of the test's agent: the fleet agent's one destructive tool
 * deleting callbacks in the orders simulator, approved through the messaging
 * simulator. `onCalled` runs once the deletion was answered, before the tool
 * returns (where a process may die, in the fault test);
 * `pendingExpiresInSeconds` is how long a question stays open; `afterCallMs`
 * how long the tool takes after that (a slow call).
 */
export function dbosTestAgentOptions(
  services: DbosTestServices,
  model: ScriptedModel,
  onCalled?: (ids: readonly string[]) => void,
  pendingExpiresInSeconds?: number,
  afterCallMs?: number,
  onCalling?: (ids: readonly string[]) => void,
  toolTimeoutMs = 2_000,
): AgentOptions {
  return fleetAgentOptions(services, {
    model,
    onCalled,
    onCalling,
    // A call cut by a killed process is reconciled this long after its claim lapsed.
    toolTimeoutMs,
    pendingExpiresInSeconds,
    ...(afterCallMs !== undefined ? { afterCallMs } : {}),
  });
}
