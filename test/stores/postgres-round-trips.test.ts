import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { buildFleetAgent, fleetServicesOf } from "../../bench/fleet-agent.js";
import { useMessagingAndOrders } from "../agent/durable/durable-helpers.js";
import { usePostgresStores } from "../helpers/postgres-test-database.js";

const simulators = useMessagingAndOrders();
const makeStore = usePostgresStores("trips");

it("a resumed run that runs one approved call costs at most 4 database round trips, as a worker takes it", async () => {
  const { messaging, orders } = simulators;
  const store = makeStore();
  const services = fleetServicesOf(orders, messaging);
  const callbackId = randomUUID();
  const starter = buildFleetAgent(services, store, {
    steps: [{ toolCalls: [{ name: "delete_callbacks", arguments: { ids: [callbackId] } }] }],
  });
  const started = await starter.run("Delete the callback.", { suspendOnApproval: true });
  expect(started.status).toBe("suspended");
  messaging.answerInteraction(started.state?.pendingCalls[0]?.interactionId ?? "", "approve");

  // What a worker does with a due run: take it, resume it under the claim, let it go.
  const before = store.roundTrips;
  const claim = await store.claimNext({ owner: "worker-1" });
  expect(claim?.runId).toBe(started.runId);
  const result = await buildFleetAgent(services, store).resume(started.runId ?? "", { claim });
  await claim?.release();
  const roundTrips = store.roundTrips - before;

  expect(result.status).toBe("completed");
  expect(result.steps[0]?.toolCalls[0]?.status).toBe("succeeded");
  expect(roundTrips).toBeLessThanOrEqual(4);
  // All of it was written: the run ended, unclaimed, its call's end recorded.
  const stored = await store.load(started.runId ?? "");
  expect(stored.status).toBe("completed");
  expect(stored.finishedCalls?.map((call) => call.status)).toEqual(["succeeded"]);
  const other = await store.claim(started.runId ?? "", { owner: "worker-2" });
  expect(other.recovered).toBe(false);
  await other.release();
  expect(
    orders.requests.filter((request) => request.method === "DELETE").map((request) => request.path),
  ).toEqual(["/callbacks"]);
});
