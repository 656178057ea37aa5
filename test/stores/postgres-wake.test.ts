import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { buildFleetAgent, fleetServicesOf } from "../../bench/fleet-agent.js";
import { RunWorker, type RunWorkerOutcome } from "../../src/agent/durable/run-worker.js";
import { useMessagingAndOrders } from "../agent/durable/durable-helpers.js";
import { usePostgresStores } from "../helpers/postgres-test-database.js";

const simulators = useMessagingAndOrders();
const makeStore = usePostgresStores("wake");

it("an idle worker takes a new run and a woken one at once, though it would look again only in an hour", async () => {
  const { messaging, orders } = simulators;
  const store = makeStore();
  const services = fleetServicesOf(orders, messaging);
  const settled: RunWorkerOutcome[] = [];
  const waiters: Array<() => void> = [];
  const nextSettled = () => new Promise<void>((resolve) => waiters.push(resolve));
  // The worker looks for due runs once, then waits for the database to say
  // one is due: its poll and its recheck are an hour.
  const worker = new RunWorker({
    runStore: store,
    agent: buildFleetAgent(services, store),
    pollIntervalMs: 3_600_000,
    recheckAfterMs: 3_600_000,
    firstRecheckAfterMs: 3_600_000,
    onRunSettled: (outcome) => {
      settled.push(outcome);
      waiters.shift()?.();
    },
  });
  const working = worker.start();
  try {
    // Idle: the worker found nothing and listens (its first wait ends at once).
    await store.waitForDue({ timeoutMs: 1 });

    // A new run, suspended at its approval and released: due at once.
    const callbackId = randomUUID();
    const starter = buildFleetAgent(services, store, {
      steps: [{ toolCalls: [{ name: "delete_callbacks", arguments: { ids: [callbackId] } }] }],
    });
    const firstCheck = nextSettled();
    const started = await starter.run("Delete the callback.", { suspendOnApproval: true });
    expect(started.status).toBe("suspended");
    await firstCheck;
    // Its answer is still pending: the worker read it and moved only its next check.
    expect(settled.map((outcome) => [outcome.runId, outcome.stillPending !== undefined])).toEqual([
      [started.runId, true],
    ]);

    // Answered: nothing would check it for an hour, until the application wakes it.
    const interactionId = started.state?.pendingCalls[0]?.interactionId ?? "";
    messaging.answerInteraction(interactionId, "approve");
    const resumed = nextSettled();
    expect(await store.wake(started.runId!)).toBe(true);
    await resumed;
    expect(settled.at(-1)).toMatchObject({ runId: started.runId, result: { status: "completed" } });
    expect(
      orders.requests
        .filter((request) => request.method === "DELETE")
        .map((request) => request.path),
    ).toEqual(["/callbacks"]);
  } finally {
    await worker.stop();
    await working;
  }
}, 60_000);
