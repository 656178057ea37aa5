import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { buildFleetAgent, fleetServicesOf } from "../../../bench/fleet-agent.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { useMessagingAndOrders, useTemporaryDirectories } from "./durable-helpers.js";

const simulators = useMessagingAndOrders();
const makeDirectory = useTemporaryDirectories();

async function suspendedRun() {
  const store = new FileRunStore({ directory: await makeDirectory() });
  const services = fleetServicesOf(simulators.orders, simulators.messaging);
  const starter = buildFleetAgent(services, store, {
    steps: [{ toolCalls: [{ name: "delete_callbacks", arguments: { ids: [randomUUID()] } }] }],
  });
  const started = await starter.run("Delete the callback.", { suspendOnApproval: true });
  const state = started.state!;
  return {
    state,
    interactionId: state.pendingCalls[0]?.interactionId ?? "",
    agent: buildFleetAgent(services, store),
  };
}

const reads = (interactionId: string) =>
  simulators.messaging.requests.filter(
    (request) => request.method === "GET" && request.path === `/v1/interactions/${interactionId}`,
  ).length;

it("reads an open question as pending with the expiry the service gives, asking once and sending nothing", async () => {
  const { state, interactionId, agent } = await suspendedRun();
  const sentBefore = simulators.messaging.messages().length;
  // Asking read the fresh question once already (a durable run's read); the peek reads it once more.
  const readBefore = reads(interactionId);
  const peek = await agent.peekPendingAnswers(state);
  expect(peek).toEqual({
    pending: true,
    expiresAt: new Date(simulators.messaging.interaction(interactionId)?.expires_at ?? ""),
  });
  expect(reads(interactionId) - readBefore).toBe(1);
  expect(simulators.messaging.messages()).toHaveLength(sentBefore);
});

it("reads any outcome as not pending (denied, expired), leaving the answer to the resume and its gate", async () => {
  const denied = await suspendedRun();
  simulators.messaging.answerInteraction(denied.interactionId, "deny");
  expect(await denied.agent.peekPendingAnswers(denied.state)).toEqual({ pending: false });
  const resumed = await denied.agent.resume(denied.state.runId);
  expect(resumed.status).toBe("completed");
  expect(simulators.orders.requests.filter((request) => request.method === "DELETE")).toEqual([]);

  const expired = await suspendedRun();
  simulators.messaging.expireInteraction(expired.interactionId);
  expect(await expired.agent.peekPendingAnswers(expired.state)).toEqual({ pending: false });
});

it("says not pending without asking when a resume could do anything: a call not waiting for an answer, or a run not suspended", async () => {
  const { state, interactionId, agent } = await suspendedRun();
  const readBefore = reads(interactionId);
  const requested = {
    ...state,
    pendingCalls: state.pendingCalls.map((call) => ({ ...call, phase: "requested" as const })),
  };
  expect(await agent.peekPendingAnswers(requested)).toEqual({ pending: false });
  expect(await agent.peekPendingAnswers({ ...state, status: "running" })).toEqual({
    pending: false,
  });
  expect(reads(interactionId) - readBefore).toBe(0);
});
