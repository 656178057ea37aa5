import { type AddressInfo, createServer } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { RunStateError, RunStoreError } from "../../src/agent/durable/durable-errors.js";
import type { RunClaim, RunQueue } from "../../src/agent/durable/run-queue.js";
import type { RunStore } from "../../src/agent/durable/run-store.js";
import { RunWorker, type RunWorkerOutcome } from "../../src/agent/durable/run-worker.js";
import { checkRunStateSeal } from "../../src/agent/durable/seal-run-state.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import {
  callbackTools,
  changed,
  useTemporaryDirectories,
} from "../agent/durable/durable-helpers.js";
import { decidingApprover } from "../helpers/approver-verbs.js";
import { usePostgresStores } from "../helpers/postgres-test-database.js";
import { until, workUntil } from "../helpers/work-until.js";

/** A store that is also its queue, as both stores here are. */
type StoreAndQueue = RunStore & RunQueue;

const makePostgresStore = usePostgresStores("attempts");
const temporaryDirectory = useTemporaryDirectories();
const stores = {
  file: async (): Promise<StoreAndQueue> =>
    new FileRunStore({ directory: await temporaryDirectory() }),
  postgres: async (): Promise<StoreAndQueue> => makePostgresStore(),
};
const stateKey = "0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c";
const deleteCall = {
  toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_delete" }],
};

/** A run of `delete_callbacks` suspended on its approval; its id. */
async function suspendedRun(store: StoreAndQueue, sealed: boolean): Promise<string> {
  const result = await new Agent({
    model: new ScriptedModel([deleteCall]),
    tools: callbackTools().tools,
    approver: new ScriptedApprover(["pending"]),
    runStore: store,
    ...(sealed ? { stateKey } : {}),
  }).run("delete cb-1", { suspendOnApproval: true });
  expect(result.status).toBe("suspended");
  return result.runId ?? "";
}

/** A worker that retries at once (5 ms, doubling to 20 ms) and gives up at the `maxAttempts`-th failure. */
function quickWorker(
  store: StoreAndQueue,
  agent: ConstructorParameters<typeof RunWorker>[0]["agent"],
  settled: RunWorkerOutcome[],
  maxAttempts = 3,
): RunWorker {
  return new RunWorker({
    runStore: store,
    agent,
    maxAttempts,
    pollIntervalMs: 10,
    firstRecheckAfterMs: 5,
    recheckAfterMs: 20,
    onRunSettled: (outcome) => settled.push(outcome),
  });
}

for (const storage of ["file", "postgres"] as const) {
  describe(`RunWorker maxAttempts (${storage})`, () => {
    it("ends a run whose resume always throws failed at the maxAttempts-th attempt, its state whole and sealed, and never takes it again", async () => {
      const store = await stores[storage]();
      const runId = await suspendedRun(store, true);
      const before = await store.load(runId);
      // An agent with no approver to read the answer: every resume of a run waiting for one throws.
      const agent = new Agent({
        model: new ScriptedModel([]),
        tools: callbackTools().tools,
        runStore: store,
        stateKey,
      });
      const settled: RunWorkerOutcome[] = [];
      await workUntil(
        quickWorker(store, agent, settled),
        () => settled.some((outcome) => outcome.gaveUp),
        "the worker to give up",
      );
      expect(settled.map((outcome) => [outcome.attempts, outcome.gaveUp ?? false])).toEqual([
        [1, false],
        [2, false],
        [3, true],
      ]);
      expect(settled.every((outcome) => outcome.error instanceof ConfigurationError)).toBe(true);

      const after = await store.load(runId);
      expect(after.status).toBe("failed");
      expect(after.revision).toBe(before.revision + 1);
      expect(after.error?.name).toBe("RunAttemptsExhausted");
      expect(after.error?.message).toMatch(
        /^Gave up after 3 failed attempts to resume the run; the last: .*has no approver to read it/,
      );
      // Nothing the run recorded is lost: the question it waits for, with its fingerprint.
      expect(after.pendingCalls).toEqual(before.pendingCalls);
      expect(after.messages).toEqual(before.messages);
      expect(() => checkRunStateSeal(after, stateKey, "the failed run")).not.toThrow();

      const schedule = await store.schedule(runId);
      expect(schedule?.attempts).toBe(3);
      expect(schedule?.lastError).toMatch(/has no approver to read it/);
      expect(schedule?.nextCheckAt).toBeUndefined();
      expect(await store.claimNext()).toBeUndefined();
      const listed = await store.list({ status: "failed" });
      expect(listed.runs.map((run) => run.runId)).toEqual([runId]);
    }, 60_000);

    it("ends the run failed without an agent when none can be built for it", async () => {
      const store = await stores[storage]();
      const runId = await suspendedRun(store, false);
      const settled: RunWorkerOutcome[] = [];
      const agent = () => {
        throw new Error("no agent for this run (token sk-live-0123456789abcdefghij)");
      };
      await workUntil(
        quickWorker(store, agent, settled),
        () => settled.some((outcome) => outcome.gaveUp),
        "the worker to give up",
      );
      expect(settled).toHaveLength(3);
      const after = await store.load(runId);
      expect(after.status).toBe("failed");
      expect(after.error?.message).toMatch(
        /^Gave up after 3 failed attempts .*no agent for this run/,
      );
      expect(JSON.stringify(after)).not.toContain("sk-live-0123456789abcdefghij");
      expect(await store.claimNext()).toBeUndefined();
    }, 60_000);

    it("settles a call that had started and never ended as of unknown outcome when it gives up on an abandoned run, and names it", async () => {
      const store = await stores[storage]();
      const runId = await suspendedRun(store, false);
      // As a worker that died in the approved call leaves the run: running, the call started.
      const suspended = await store.load(runId);
      const abandoned = changed(suspended, (state) => {
        state.status = "running";
        state.revision += 1;
        const call = state.pendingCalls[0];
        if (call) call.phase = "started";
        state.usedApprovals = [call?.approvalId ?? ""];
      });
      // Its claim is never renewed or released: it lapses after 300 ms.
      const dead = await store.claim(runId, { leaseMs: 300 });
      await store.save(abandoned, { expectedRevision: suspended.revision, claim: dead });
      const settled: RunWorkerOutcome[] = [];
      const agent = () => {
        throw new Error("no agent for this run");
      };
      await workUntil(
        quickWorker(store, agent, settled),
        () => settled.some((outcome) => outcome.gaveUp),
        "the worker to give up",
      );
      expect(settled.every((outcome) => outcome.recovered)).toBe(true);
      const after = await store.load(runId);
      expect(after.status).toBe("failed");
      // Settled as a resume settles it: of unknown outcome, never run again, and listed so.
      expect(after.pendingCalls).toEqual([
        expect.objectContaining({
          toolCallId: "call_delete",
          phase: "finished",
          status: "outcome_unknown",
          fingerprint: abandoned.pendingCalls[0]?.fingerprint,
          approvalId: abandoned.pendingCalls[0]?.approvalId,
          content: expect.stringContaining(
            "Outcome unknown: the call to delete_callbacks had started",
          ),
        }),
      ]);
      expect(after.usedApprovals).toEqual([abandoned.pendingCalls[0]?.approvalId]);
      const listed = await store.list({ status: "failed" });
      expect(listed.runs[0]?.outcomeUnknownCalls).toEqual([
        { toolCallId: "call_delete", toolName: "delete_callbacks", stepNumber: 1 },
      ]);
      expect(after.error?.message).toContain(
        "Calls that had started and never recorded an end (outcome unknown, never run again): delete_callbacks (call_delete).",
      );
    }, 60_000);

    it("removes the agent's secrets from the last error it saves and the error it reports, as from the run's own error", async () => {
      const store = await stores[storage]();
      const runId = await suspendedRun(store, true);
      const secret = "hunter2-db-password";
      // A store of the application's own whose driver echoes its settings in its errors.
      const leaky = new Proxy(store, {
        get(target, property) {
          if (property === "isApprovalUsed") {
            return () => Promise.reject(new Error(`could not connect: host=db password=${secret}`));
          }
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const agent = new Agent({
        model: new ScriptedModel([]),
        tools: callbackTools().tools,
        approver: new ScriptedApprover([], { checks: ["approve", "approve", "approve"] }),
        runStore: leaky,
        stateKey,
        secrets: [secret],
      });
      const settled: RunWorkerOutcome[] = [];
      const lastErrors: Array<string | undefined> = [];
      const worker = new RunWorker({
        runStore: store,
        agent,
        maxAttempts: 3,
        pollIntervalMs: 10,
        firstRecheckAfterMs: 5,
        recheckAfterMs: 20,
        onRunSettled: (outcome) => {
          settled.push(outcome);
          void store.schedule(runId).then((schedule) => lastErrors.push(schedule?.lastError));
        },
      });
      await workUntil(
        worker,
        () => settled.some((outcome) => outcome.gaveUp) && lastErrors.length === settled.length,
        "the worker to give up",
      );
      expect(settled).toHaveLength(3);
      expect(lastErrors.every((text) => text?.includes("password=[redacted]"))).toBe(true);
      for (const outcome of settled) {
        expect(outcome.error?.message).toContain("password=[redacted]");
      }
      const after = await store.load(runId);
      expect(after.status).toBe("failed");
      expect(
        JSON.stringify([after, lastErrors, settled.map((o) => o.error?.message)]),
      ).not.toContain(secret);
    }, 60_000);

    it("does not end a sealed run failed without an agent to seal it: the run stays, its attempts recorded", async () => {
      const store = await stores[storage]();
      const runId = await suspendedRun(store, true);
      const settled: RunWorkerOutcome[] = [];
      const agent = () => {
        throw new Error("no agent for this run");
      };
      await workUntil(
        quickWorker(store, agent, settled),
        () => settled.length >= 4,
        "four failed attempts",
      );
      expect(settled.some((outcome) => outcome.gaveUp)).toBe(false);
      expect((await store.load(runId)).status).toBe("suspended");
      expect((await store.schedule(runId))?.attempts).toBe(settled.length);
    }, 60_000);

    it("never rewrites a sealed run for a worker whose stateKey is not the one it was sealed with: each answered resume is a failed attempt, and giving up is refused", async () => {
      const store = await stores[storage]();
      const runId = await suspendedRun(store, true);
      const before = await store.load(runId);
      const { tools, deletions } = callbackTools();
      const agent = new Agent({
        model: new ScriptedModel([]),
        tools,
        approver: new ScriptedApprover([], {
          checks: ["approve", "approve", "approve", "approve"],
        }),
        runStore: store,
        stateKey: "another key, not the one the run was sealed with",
      });
      const settled: RunWorkerOutcome[] = [];
      await workUntil(
        quickWorker(store, agent, settled),
        () => settled.length >= 4,
        "four attempts",
      );
      expect(settled.map((outcome) => outcome.attempts)).toEqual(
        settled.map((_, index) => index + 1),
      );
      expect(settled.every((outcome) => outcome.error instanceof RunStateError)).toBe(true);
      // The third attempt and those after it try to end the run: the seal is checked first.
      expect(settled.some((outcome) => outcome.gaveUp)).toBe(false);
      expect(deletions).toEqual([]);
      expect(await store.load(runId)).toEqual(before);
      expect((await store.schedule(runId))?.lastError).toContain("seal does not match");
    }, 60_000);

    it("does not make a run due again at once when the store refused its end: a worker without the key on a sealed store backs off, counts the attempts and never writes the run", async () => {
      const store = await stores[storage]();
      const runId = await suspendedRun(store, true);
      const before = await store.load(runId);
      // The answer is in; this worker's agent has no stateKey, so the store
      // refuses every state it saves (unsealed, in a store of sealed states).
      const { tools, deletions } = callbackTools();
      const agent = new Agent({
        model: new ScriptedModel([]),
        tools,
        approver: decidingApprover((action) => ({
          outcome: "approved",
          fingerprint: action.fingerprint,
        })),
        runStore: store,
      });
      const settled: RunWorkerOutcome[] = [];
      await workUntil(
        quickWorker(store, agent, settled),
        () => settled.length >= 4,
        "four attempts",
      );
      // Each a failed attempt, as with a key that does not match: counted,
      // so it backs off; never given up on (no key to seal the end with).
      expect(settled.map((outcome) => outcome.result?.status ?? outcome.attempts)).toEqual(
        settled.map((_, index) => index + 1),
      );
      expect(settled.every((outcome) => outcome.error instanceof RunStateError)).toBe(true);
      expect(settled.some((outcome) => outcome.gaveUp)).toBe(false);
      expect(deletions).toEqual([]);
      expect(await store.load(runId)).toEqual(before);
      expect(await store.schedule(runId)).toMatchObject({
        attempts: settled.length,
        lastError: expect.stringContaining("not sealed"),
      });
    }, 60_000);

    it("waits longer after each failure in a row, past recheckAfterMs, up to maxRetryAfterMs", async () => {
      const store = await stores[storage]();
      const runId = await suspendedRun(store, false);
      // No approver to read the answer: every resume throws.
      const agent = new Agent({
        model: new ScriptedModel([]),
        tools: callbackTools().tools,
        runStore: store,
      });
      const settled: { attempts: number | undefined }[] = [];
      // When the worker released each claim with its next check: the wait is
      // measured from there, not from a callback a loaded machine may delay.
      const releasedAt: number[] = [];
      const watchClaim = (claim: RunClaim): RunClaim =>
        new Proxy(claim, {
          get(target, property) {
            if (property === "release") {
              return (options?: Parameters<RunClaim["release"]>[0]) => {
                if (options?.nextCheckAt) releasedAt.push(Date.now());
                return target.release(options);
              };
            }
            const value = Reflect.get(target, property, target);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
      const watched = new Proxy(store, {
        get(target, property) {
          const value = Reflect.get(target, property, target);
          if (property === "claimNext") {
            return async (...args: Parameters<StoreAndQueue["claimNext"]>) => {
              const claim = await target.claimNext(...args);
              return claim && watchClaim(claim);
            };
          }
          if (property === "claimDue") {
            return async (...args: Parameters<StoreAndQueue["claimDue"]>) =>
              (await target.claimDue(...args)).map(watchClaim);
          }
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const worker = new RunWorker({
        runStore: watched,
        agent,
        maxAttempts: 10,
        pollIntervalMs: 10,
        firstRecheckAfterMs: 1_000,
        recheckAfterMs: 1_000,
        maxRetryAfterMs: 60_000,
        onRunSettled: (outcome) => settled.push({ attempts: outcome.attempts }),
      });
      await workUntil(worker, () => settled.length >= 2, "two failed attempts");
      expect(settled.map((outcome) => outcome.attempts)).toEqual([1, 2]);
      const schedule = await store.schedule(runId);
      const waited = (schedule?.nextCheckAt?.getTime() ?? 0) - (releasedAt[1] ?? 0);
      // After the second failure: 2 s less up to a quarter (1.5 to 2 s), not
      // recheckAfterMs' 1 s; a failing deploy does not use up a day's attempts in minutes.
      expect(waited).toBeGreaterThan(1_250);
      expect(waited).toBeLessThanOrEqual(2_000);
    }, 30_000);

    it("starts the count again after a resume that goes through: two failures, a resume, two failures, then the run completes", async () => {
      const store = await stores[storage]();
      const runId = await suspendedRun(store, false);
      const { tools, deletions } = callbackTools();
      let built = 0;
      const agent = () => {
        built++;
        if (built === 1 || built === 2 || built === 4 || built === 5) {
          throw new Error(`agent ${built} could not be built`);
        }
        return new Agent({
          model: new ScriptedModel([{ text: "Deleted." }]),
          tools,
          // The third resume finds the answer still pending; the sixth, approved.
          approver: new ScriptedApprover([], { checks: [built === 3 ? "pending" : "approve"] }),
          runStore: store,
        });
      };
      const settled: RunWorkerOutcome[] = [];
      await workUntil(
        quickWorker(store, agent, settled),
        () => settled.some((outcome) => outcome.result?.status === "completed"),
        "the run to complete",
      );
      expect(
        settled.map((outcome) => outcome.result?.status ?? `attempt ${outcome.attempts}`),
      ).toEqual(["attempt 1", "attempt 2", "suspended", "attempt 1", "attempt 2", "completed"]);
      expect(deletions).toEqual([["cb-1"]]);
      expect((await store.load(runId)).status).toBe("completed");
      expect((await store.schedule(runId))?.attempts).toBe(0);
    }, 60_000);
  });
}

describe("RunWorker maxAttempts and store failures", () => {
  let closedPort: number;
  beforeAll(async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closedPort = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("does not count a failure of the store: a run that failed once and then met an unreachable database is not given up at maxAttempts 2", async () => {
    const store = makePostgresStore();
    const runId = await suspendedRun(store, true);
    // The agent's store refuses connections (nothing listens on its port):
    // the resume's read of the approvals spent fails with a RunStoreError.
    const unreachable = new PostgresRunStore({
      connectionString: `postgres://switchyard:switchyard@127.0.0.1:${closedPort}/switchyard`,
      retry: { maxRetries: 0 },
    });
    const { tools, deletions } = callbackTools();
    let built = 0;
    let proceed: () => void = () => {};
    const proceeding = new Promise<void>((resolve) => {
      proceed = resolve;
    });
    const agent = async () => {
      built++;
      if (built === 1) throw new Error("the first agent could not be built");
      if (built === 3) await proceeding;
      return new Agent({
        model: new ScriptedModel([{ text: "Deleted." }]),
        tools,
        approver: new ScriptedApprover([], { checks: ["approve"] }),
        runStore: built === 2 ? unreachable : store,
        stateKey,
      });
    };
    const settled: RunWorkerOutcome[] = [];
    const worker = quickWorker(store, agent, settled, 2);
    const working = worker.start();
    try {
      await until(() => settled.length >= 2, "two failed attempts");
      expect(settled[1]?.error).toBeInstanceOf(RunStoreError);
      expect(settled[1]?.gaveUp).toBeUndefined();
      expect((await store.load(runId)).status).toBe("suspended");
      // The count stays at the one failure of the run's own.
      expect(await store.schedule(runId)).toMatchObject({
        attempts: 1,
        lastError: "the first agent could not be built",
      });
      proceed();
      await until(
        () => settled.some((outcome) => outcome.result?.status === "completed"),
        "the run to complete",
      );
    } finally {
      proceed();
      await worker.stop();
      await working;
      await unreachable.close();
    }
    expect(settled.map((outcome) => outcome.attempts)).toEqual([1, 1, undefined]);
    expect((await store.schedule(runId))?.attempts).toBe(0);
    expect(deletions).toEqual([["cb-1"]]);
  }, 60_000);
});
