import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { RunNotFoundError, RunNotResumableError } from "../agent/durable/durable-errors.js";
import { type RunClaim, type RunQueue, runQueueMethods } from "../agent/durable/run-queue.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { missingMethods } from "../internal/missing-methods.js";
import {
  assertConflict,
  type QueueUnderTest,
  runState,
  saveRunWhoseHolderDied,
  startedState,
} from "./conformance-states.js";
import { type ConformanceTest, declareConformanceTest } from "./declare-conformance-test.js";

/** What {@link runQueueConformance} needs: your test framework's functions and your queue. */
export interface RunQueueConformanceOptions {
  /** Names the suite in the report (`describe` of vitest, jest, mocha or `node:test`). */
  describe: (name: string, body: () => void) => unknown;
  /** Declares one test (`it` or `test` of the same framework). */
  it: (name: string, body: ConformanceTest) => unknown;
  /**
   * Makes an empty queue for one test, with the run store whose runs it
   * hands out (the suite saves runs there to have runs to hand out); for a
   * class that is both, the same object twice. Each test creates its own,
   * so tests never see each other's runs. The store must refuse a save
   * under a claim of this queue that is no longer current.
   */
  createQueue: () => QueueUnderTest | Promise<QueueUnderTest>;
  /** Frees what `createQueue` made (closes its pool). @default nothing */
  closeQueue?: ((made: QueueUnderTest) => Promise<void> | void) | undefined;
  /** The suite's name. @default "RunQueue conformance" */
  name?: string | undefined;
}

/**
 * The contract of a {@link RunQueue}, as tests your queue must pass: claims
 * that exclude each other, fence a stale holder's saves and expire unless
 * renewed; `claimNext` and `claimDue` handing each due run to one caller,
 * oldest due first, within a budget of approval checks; the schedule of
 * failed attempts; `wake` and `waitForDue`; a claim's state; a save that
 * ends its claim; a call's start fenced by the claim. Every method of the
 * contract is required. Assertions use `node:assert`, so any framework
 * runs it. A store that is also a queue runs both this suite and
 * `runStoreConformance`.
 *
 * @example
 * // my-queue.test.ts (vitest)
 * import { describe, it } from "vitest";
 * import { runQueueConformance } from "switchyard-agents/testing";
 * runQueueConformance({
 *   describe,
 *   it,
 *   createQueue: () => {
 *     const store = new MyRunStore();
 *     return { store, queue: new MyRunQueue(store) };
 *   },
 * });
 */
export function runQueueConformance(options: RunQueueConformanceOptions): void {
  const { describe, it } = options;
  const subject = {
    make: () => options.createQueue(),
    free: (made: QueueUnderTest) => options.closeQueue?.(made),
  };
  const test = (name: string, body: (under: QueueUnderTest) => Promise<void>) =>
    declareConformanceTest(it, name, subject, body);

  describe(options.name ?? "RunQueue conformance", () => {
    test("implements every method of the RunQueue contract", async ({ queue }) => {
      const missing = missingMethods(queue, runQueueMethods);
      assert.deepEqual(missing, [], `the queue lacks ${missing.join(", ")}`);
    });

    describe("claims", () => {
      test("lets one process claim a run at a time, and another once released", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const first = await queue.claim("run-a", { owner: "worker-1" });
        assert.equal(first.runId, "run-a");
        await assert.rejects(queue.claim("run-a", { owner: "worker-2" }), (error: unknown) => {
          assert.ok(error instanceof RunNotResumableError);
          assert.equal(error.status, "claimed");
          return true;
        });
        await first.release();
        const second = await queue.claim("run-a", { owner: "worker-2" });
        assert.ok(second.token > first.token, "a later claim has a larger fencing token");
        await second.release();
      });

      test("claims a run not saved yet, so a new run is held from its first save", async ({
        store,
        queue,
      }) => {
        const claim = await queue.claim("run-new");
        await assert.rejects(queue.claim("run-new"), RunNotResumableError);
        await store.save(runState("run-new", { revision: 1, status: "running" }), {
          expectedRevision: 0,
          claim,
        });
        assert.equal((await store.load("run-new")).status, "running");
        await claim.release();
      });

      test("fences only the run a claim was taken on: a claim on one run cannot save another", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { revision: 1, status: "suspended" }));
        await store.save(runState("run-b", { revision: 1, status: "suspended" }));
        const onA = await queue.claim("run-a", { owner: "worker-1" });
        const onB = await queue.claim("run-b", { owner: "worker-2" });
        await assertConflict(
          store.save(runState("run-b", { revision: 2, stepCount: 4 }), {
            expectedRevision: 1,
            claim: onA,
          }),
          "claim",
        );
        assert.equal((await store.load("run-b")).stepCount, 1);
        await store.save(runState("run-b", { revision: 2, stepCount: 5 }), {
          expectedRevision: 1,
          claim: onB,
        });
        await onA.release();
        await onB.release();
      });

      test("does not delete a run another process holds; its holder can", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { revision: 1, status: "suspended" }));
        const held = await queue.claim("run-a", { owner: "worker-1" });
        await assert.rejects(store.delete("run-a"), (error: unknown) => {
          assert.ok(error instanceof RunNotResumableError);
          assert.equal(error.status, "claimed");
          return true;
        });
        assert.equal((await store.load("run-a")).revision, 1);
        assert.equal(await store.delete("run-a", { claim: held }), true);
        await assert.rejects(store.load("run-a"), RunNotFoundError);
        await held.release();
        assert.equal(await store.delete("run-a"), false);
      });

      test("fences a holder whose run was taken over: its saves and renewals are refused", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { revision: 1, status: "suspended" }));
        const stale = await queue.claim("run-a", { owner: "worker-1" });
        const current = await queue.claim("run-a", { owner: "worker-2", takeOver: true });
        assert.equal(current.recovered, true);
        assert.ok(current.token > stale.token);
        // The holder taken over may act until its lease would have run out.
        const since = current.sincePreviousHolderMs;
        if (since !== undefined) assert.ok(since <= 0, `sincePreviousHolderMs ${since} > 0`);
        await assertConflict(
          store.save(runState("run-a", { revision: 2, stepCount: 4 }), {
            expectedRevision: 1,
            claim: stale,
          }),
          "claim",
        );
        await assertConflict(stale.renew(), "claim");
        await store.save(runState("run-a", { revision: 2, stepCount: 5 }), {
          expectedRevision: 1,
          claim: current,
        });
        await stale.release();
        await assert.rejects(queue.claim("run-a"), RunNotResumableError);
        assert.equal((await store.load("run-a")).stepCount, 5);
        await current.release();
      });

      test("ends a claim that is not renewed: a stalled holder loses the run", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        const leaseMs = 300;
        const lapsed = await queue.claim("run-a", { leaseMs, owner: "worker-1" });
        assert.ok(lapsed.expiresAt instanceof Date, "a claim says when it expires");
        await sleep(leaseMs * 3);
        const next = await queue.claim("run-a", { owner: "worker-2" });
        assert.equal(next.recovered, true, "a claim taken from an expired one is recovered");
        // Its holder stopped acting when its lease ran out: at least 2 leases ago.
        const since = next.sincePreviousHolderMs;
        if (since !== undefined) assert.ok(since >= leaseMs, `sincePreviousHolderMs ${since}`);
        await assertConflict(
          store.save(runState("run-a", { revision: 2 }), { expectedRevision: 1, claim: lapsed }),
          "claim",
        );
        await assertConflict(lapsed.renew(), "claim");
        await next.release();
      });

      test("keeps a claim that is renewed in time", async ({ store, queue }) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        const leaseMs = 1_500;
        const kept = await queue.claim("run-a", { leaseMs, owner: "worker-1" });
        for (let renewal = 0; renewal < 4; renewal++) {
          await sleep(leaseMs / 3);
          await kept.renew();
        }
        await assert.rejects(queue.claim("run-a", { owner: "worker-2" }), RunNotResumableError);
        await store.save(runState("run-a", { revision: 2 }), { expectedRevision: 1, claim: kept });
        await kept.release();
      });
    });

    describe("claimNext", () => {
      test("hands each due suspended run to exactly one of many callers", async ({
        store,
        queue,
      }) => {
        const runIds = Array.from({ length: 12 }, (_, index) => `run-${index}`);
        for (const runId of runIds) await store.save(runState(runId, { status: "suspended" }));
        await store.save(runState("run-done", { status: "completed" }));
        const taken: string[] = [];
        const held: RunClaim[] = [];
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            for (;;) {
              const claim = await queue.claimNext({ leaseMs: 30_000 });
              if (!claim) return;
              taken.push(claim.runId);
              held.push(claim);
            }
          }),
        );
        assert.deepEqual([...taken].sort(), [...runIds].sort());
        for (const claim of held) await claim.release();
      });

      test("leaves a run until its next check time once released with one", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const claim = await queue.claimNext();
        assert.equal(claim?.runId, "run-a");
        await claim?.release({ nextCheckAt: new Date(Date.now() + 60_000) });
        assert.equal(await queue.claimNext(), undefined);
        const again = await queue.claim("run-a");
        await again.release({ nextCheckAt: new Date(Date.now() - 1000) });
        const due = await queue.claimNext();
        assert.equal(due?.runId, "run-a");
        await due?.release();
      });

      test("recovers a running run whose claim expired (its holder stalled or died)", async ({
        store,
        queue,
      }) => {
        const leaseMs = 300;
        const claim = await queue.claim("run-a", { leaseMs });
        await store.save(runState("run-a", { revision: 1, status: "running" }), {
          expectedRevision: 0,
          claim,
        });
        assert.equal(await queue.claimNext(), undefined, "a held run is not handed out");
        await sleep(leaseMs * 3);
        const recovered = await queue.claimNext();
        assert.equal(recovered?.runId, "run-a");
        assert.equal(recovered?.recovered, true);
        await recovered?.release();
      });
    });

    describe("claimDue: several due runs at once", () => {
      const testClaimDue = (
        name: string,
        body: (under: QueueUnderTest, claimDue: RunQueue["claimDue"]) => Promise<void>,
      ) => test(name, (under) => body(under, under.queue.claimDue.bind(under.queue)));

      testClaimDue(
        "claims several due runs in one call, oldest due first, each under a claim of its own",
        async ({ store, queue }, claimDue) => {
          const earlier = await queue.claim("run-earlier");
          await earlier.release();
          for (const [index, runId] of ["run-a", "run-b", "run-c", "run-d", "run-e"].entries()) {
            await store.save(runState(runId, { status: "suspended" }));
            const claim = await queue.claim(runId);
            await claim.release({ nextCheckAt: new Date(Date.now() - (5 - index) * 60_000) });
          }
          const first = await claimDue({ max: 3, owner: "worker-1" });
          assert.deepEqual(
            first.map((claim) => claim.runId),
            ["run-a", "run-b", "run-c"],
          );
          const tokens = new Set(first.map((claim) => claim.token));
          assert.equal(tokens.size, 3, "each claim has a fencing token of its own");
          for (const claim of first) {
            assert.ok(claim.token > earlier.token, "the tokens come after every earlier claim's");
            assert.equal(claim.owner, "worker-1");
            assert.equal(claim.recovered, false);
            assert.equal(claim.attempts, 0);
            if (claim.state !== undefined) {
              assert.deepEqual(claim.state, await store.load(claim.runId));
            }
          }
          assert.equal(await queue.wake("run-a"), false, "a run claimed so is held");
          await assert.rejects(queue.claim("run-b"), RunNotResumableError);
          const [held] = first;
          await store.save(runState("run-a", { revision: 2, status: "running" }), {
            expectedRevision: 1,
            claim: held,
          });
          const rest = await claimDue({ max: 10 });
          assert.deepEqual(
            rest.map((claim) => claim.runId),
            ["run-d", "run-e"],
          );
          assert.deepEqual(await claimDue({ max: 10 }), [], "nothing else is due");
          for (const claim of [...first, ...rest]) await claim.release();
        },
      );

      testClaimDue(
        "hands each due run to exactly one of many callers claiming at once",
        async ({ store }, claimDue) => {
          const runIds = Array.from({ length: 20 }, (_, index) => `run-${index}`);
          for (const runId of runIds) await store.save(runState(runId, { status: "suspended" }));
          const taken: RunClaim[] = [];
          await Promise.all(
            Array.from({ length: 4 }, async () => {
              for (;;) {
                const claims = await claimDue({ max: 3, leaseMs: 30_000 });
                if (claims.length === 0) return;
                assert.ok(claims.length <= 3, `asked for 3, got ${claims.length}`);
                taken.push(...claims);
              }
            }),
          );
          assert.deepEqual(taken.map((claim) => claim.runId).sort(), [...runIds].sort());
          for (const claim of taken) await claim.release();
        },
      );

      testClaimDue(
        "pays one check of the budget per run waiting for answers it takes, and takes no more than the budget holds",
        async ({ store, queue }, claimDue) => {
          const runIds = Array.from({ length: 8 }, (_, index) => `run-${index}`);
          for (const runId of runIds) await store.save(runState(runId, { status: "suspended" }));
          // A run not waiting for an answer (its holder died) costs no check.
          await saveRunWhoseHolderDied({ store, queue }, "run-other");
          // Two checks saved up, refilled at two a second. A store may keep
          // the budget in parts (one call then takes what one part holds).
          const budget = { checksPerSecond: 2 };
          const checksOf = (claims: RunClaim[]) =>
            claims.filter((claim) => claim.runId !== "run-other").length;
          const calls: RunClaim[][] = [];
          const begun = Date.now();
          // Calls in a row, until one takes no run waiting for an answer.
          while (calls.length < 10) {
            const claims = await claimDue({ ...budget, max: 5 });
            calls.push(claims);
            assert.ok(checksOf(claims) <= 2, `one call took ${checksOf(claims)} checks of 2`);
            if (checksOf(claims) === 0) break;
          }
          // Only the two saved up, and what was refilled since: two a second.
          const refilled = Math.floor(((Date.now() - begun) / 1000) * 2);
          const taken = calls.flat();
          const checks = checksOf(taken);
          assert.ok(checks >= 2, `the two checks saved up are handed out; got ${checks}`);
          assert.ok(
            checks <= 2 + refilled,
            `each run waiting for answers pays one check: calls in a row took ${checks}, the budget allows ${2 + refilled}`,
          );
          assert.ok(
            taken.some((claim) => claim.runId === "run-other"),
            "a run that is not a check is taken whatever the budget",
          );
          const unlimited = await claimDue({ max: 20 });
          assert.equal(taken.length + unlimited.length, runIds.length + 1);
          for (const claim of [...taken, ...unlimited]) await claim.release();
        },
      );

      testClaimDue(
        "resolves an empty list when nothing is due, and refuses a max out of range",
        async ({ store, queue }, claimDue) => {
          assert.deepEqual(await claimDue({ max: 5 }), []);
          await store.save(runState("run-later", { status: "suspended" }));
          const claim = await queue.claim("run-later");
          await claim.release({ nextCheckAt: new Date(Date.now() + 3_600_000) });
          await store.save(runState("run-done", { status: "completed" }));
          assert.deepEqual(await claimDue({ max: 5 }), []);
          assert.deepEqual(await claimDue({ max: 5, checksPerSecond: 0.001 }), []);
          for (const max of [0, -1, 1.5, 1001, Number.NaN]) {
            await assert.rejects(claimDue({ max }), ConfigurationError);
          }
        },
      );
    });

    describe("schedule: next check and failed attempts", () => {
      test("counts the failed attempts in a row and keeps the last error, until one goes through", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const first = await queue.claim("run-a");
        assert.equal(first.attempts, 0);
        await first.release({ nextCheckAt: new Date(Date.now() - 1_000), error: "first failure" });
        const second = await queue.claimNext();
        assert.equal(second?.runId, "run-a");
        assert.equal(second?.attempts, 1, "claimNext says how many attempts failed");
        await second?.release({ nextCheckAt: new Date(Date.now() + 3_600_000), error: "second" });
        const failing = await queue.schedule("run-a");
        assert.equal(failing?.attempts, 2);
        assert.equal(failing?.lastError, "second");
        assert.ok(
          failing?.nextCheckAt && failing.nextCheckAt.getTime() > Date.now() + 1_800_000,
          `the next check is the one released with, an hour on; got ${failing?.nextCheckAt?.toISOString()}`,
        );
        assert.equal((await store.load("run-a")).revision, 1, "the state is not rewritten");
        const third = await queue.claim("run-a");
        assert.equal(third.attempts, 2);
        await third.release();
        const recovered = await queue.schedule("run-a");
        assert.equal(recovered?.attempts, 0, "an attempt that went through ends the series");
        assert.equal(recovered?.lastError, undefined);
        assert.equal(await queue.schedule("run-missing"), undefined);
        await store.save(runState("run-done", { status: "completed" }));
        assert.equal((await queue.schedule("run-done"))?.nextCheckAt, undefined);
      });

      test("a save that ends its claim ends the series too; a run ended failed keeps its count", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const failing = await queue.claim("run-a");
        await failing.release({ error: "first failure" });
        const resumed = await queue.claim("run-a");
        assert.equal(resumed.attempts, 1);
        await store.save(runState("run-a", { status: "completed", revision: 2 }), {
          expectedRevision: 1,
          claim: resumed,
          release: true,
        });
        const completed = await queue.schedule("run-a");
        assert.equal(completed?.attempts, 0, "the save that ended the claim ended the series");
        assert.equal(completed?.lastError, undefined);

        // What a worker giving up does: the failed state under the claim, then the last attempt.
        await store.save(runState("run-b", { status: "suspended" }));
        const last = await queue.claim("run-b");
        await store.save(runState("run-b", { status: "failed", revision: 2 }), {
          expectedRevision: 1,
          claim: last,
        });
        await last.release({ error: "the last failure" });
        const failed = await queue.schedule("run-b");
        assert.equal(failed?.attempts, 1);
        assert.equal(failed?.lastError, "the last failure");
        assert.equal(failed?.nextCheckAt, undefined);
        assert.equal(await queue.claimNext(), undefined, "a failed run is never handed out");
      });

      test("a release with keepAttempts leaves the count and the last error as they are", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const failing = await queue.claim("run-a");
        await failing.release({ error: "the run's own failure" });
        const untried = await queue.claim("run-a");
        await untried.release({ nextCheckAt: new Date(Date.now() - 1_000), keepAttempts: true });
        const kept = await queue.schedule("run-a");
        assert.equal(kept?.attempts, 1);
        assert.equal(kept?.lastError, "the run's own failure");
        const next = await queue.claimNext();
        assert.equal(next?.runId, "run-a", "due as the release said");
        assert.equal(next?.attempts, 1);
        await next?.release();
        assert.equal((await queue.schedule("run-a"))?.attempts, 0);
      });
    });

    describe("a budget of approval checks (claimNext checksPerSecond)", () => {
      test("hands out runs waiting for answers no faster than the budget, oldest due first, and other due runs as usual", async ({
        store,
        queue,
      }) => {
        // One check saved up; the next only after 1,000 s.
        const budget = { checksPerSecond: 0.001 };
        // A run whose holder died is recovered whatever the budget.
        await saveRunWhoseHolderDied({ store, queue }, "run-other");
        for (const [runId, agoMs] of [
          ["run-a", 3_000],
          ["run-b", 2_000],
          ["run-c", 1_000],
        ] as const) {
          await store.save(runState(runId));
          const claim = await queue.claim(runId);
          await claim.release({ nextCheckAt: new Date(Date.now() - agoMs) });
        }
        const taken: RunClaim[] = [];
        const take = async (options = budget) => {
          const claim = await queue.claimNext(options);
          if (claim) taken.push(claim);
          return claim?.runId;
        };
        assert.equal(await take(), "run-other", "a run not waiting for an answer costs no check");
        assert.equal(taken[0]?.recovered, true);
        assert.equal(await take(), "run-a", "the check due longest ago goes first");
        assert.equal(await take(), undefined, "the budget is spent: the other checks wait");
        assert.equal(await take(), undefined);
        const unlimited = {} as typeof budget;
        assert.equal(await take(unlimited), "run-b", "no budget: no limit");
        assert.equal(await take(unlimited), "run-c");
        await assert.rejects(queue.claimNext({ checksPerSecond: 0 }), ConfigurationError);
        for (const claim of taken) await claim.release();
      });
    });

    describe("wake and waitForDue", () => {
      test("wake makes a suspended run due now, and only a suspended run no one holds", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { status: "suspended" }));
        await store.save(runState("run-done", { status: "completed" }));
        const claim = await queue.claimNext();
        assert.equal(claim?.runId, "run-a");
        assert.equal(await queue.wake("run-a"), false, "a held run is left to its holder");
        await claim?.release({ nextCheckAt: new Date(Date.now() + 3_600_000) });
        assert.equal(await queue.claimNext(), undefined);
        assert.equal(await queue.wake("run-a"), true);
        const due = await queue.claimNext();
        assert.equal(due?.runId, "run-a", "a woken run is due at once");
        await due?.release();
        assert.equal(await queue.wake("run-done"), false, "a run that ended is not woken");
        // A woken run goes before runs due earlier (its answer is known).
        await store.save(runState("run-b", { status: "suspended" }));
        const early = await queue.claim("run-b");
        await early.release({ nextCheckAt: new Date(Date.now() - 60_000) });
        const later = await queue.claim("run-a");
        await later.release({ nextCheckAt: new Date(Date.now() + 3_600_000) });
        assert.equal(await queue.wake("run-a"), true);
        const first = await queue.claimNext({ checksPerSecond: 0.001 });
        assert.equal(first?.runId, "run-a", "the woken run is taken first");
        assert.equal(await queue.claimNext({ checksPerSecond: 0.001 }), undefined);
        await first?.release();
        assert.equal(await queue.wake("run-missing"), false);
      });

      test("a woken run goes before a run suspended earlier that was never checked", async ({
        store,
        queue,
      }) => {
        // Due since it was saved, and never looked at: due earlier than any check time.
        await store.save(runState("run-early", { status: "suspended" }));
        await store.save(runState("run-a", { status: "suspended" }));
        const checked = await queue.claim("run-a");
        await checked.release({ nextCheckAt: new Date(Date.now() + 3_600_000) });
        assert.equal(await queue.wake("run-a"), true);
        const first = await queue.claimNext({ checksPerSecond: 0.001 });
        assert.equal(first?.runId, "run-a", "the woken run is taken first");
        await first?.release();
        const rest = await queue.claimNext();
        assert.equal(rest?.runId, "run-early");
        await rest?.release();
      });

      test("waitForDue ends on a wake, after its time, or on its signal", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const claim = await queue.claim("run-a");
        await claim.release({ nextCheckAt: new Date(Date.now() + 3_600_000) });
        // Nothing announced: the wait runs its time out (or says so at once,
        // for a store that was told of a run earlier), never rejects.
        await queue.waitForDue({ timeoutMs: 20 });
        assert.equal(await queue.waitForDue({ timeoutMs: 20 }), "timeout");
        const stop = new AbortController();
        const stopped = queue.waitForDue({ timeoutMs: 3_600_000, signal: stop.signal });
        stop.abort();
        assert.equal(await stopped, "aborted");
        // An hour-long wait ends because of the wake, not its time.
        const waiting = queue.waitForDue({ timeoutMs: 3_600_000 });
        assert.equal(await queue.wake("run-a"), true);
        assert.equal(await waiting, "notified");
      });
    });

    describe("a claim's state", () => {
      test("is, when a claim carries one, the state stored, and is gone once a save is made under the claim", async ({
        store,
        queue,
      }) => {
        const stored = runState("run-a", { revision: 1, status: "suspended" });
        await store.save(stored);
        const claim = await queue.claimNext({ owner: "worker-1" });
        assert.equal(claim?.runId, "run-a");
        if (claim?.state !== undefined) assert.deepEqual(claim.state, await store.load("run-a"));
        await store.save(runState("run-a", { revision: 2, status: "running" }), {
          expectedRevision: 1,
          claim,
        });
        assert.equal(claim?.state, undefined, "a state saved over is not handed on");
        await claim?.release();
      });
    });

    describe("a save that releases its claim", () => {
      test("ends the claim with the save: another process takes the run at once; a refused save releases nothing", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        const first = await queue.claim("run-a", { owner: "worker-1" });
        await store.save(runState("run-a", { revision: 2, status: "completed" }), {
          expectedRevision: 1,
          claim: first,
          release: true,
        });
        const second = await queue.claim("run-a", { owner: "worker-2" });
        assert.equal(second.recovered, false, "the run was let go, not taken from a holder");
        await first.release();
        await assertConflict(
          store.save(runState("run-a", { revision: 3, status: "completed" }), {
            expectedRevision: 2,
            claim: first,
            release: true,
          }),
          "claim",
        );
        await assertConflict(
          store.save(runState("run-a", { revision: 3, status: "completed" }), {
            expectedRevision: 1,
            claim: second,
            release: true,
          }),
          "revision",
        );
        await assert.rejects(queue.claim("run-a", { owner: "worker-3" }), RunNotResumableError);
        await second.release();
      });
    });

    describe("starting a call under a claim", () => {
      const approval = "run-a.3q2-7wEiRKe8sYdq5Bn0WQ";
      const start = { toolCallId: "call_1", fingerprint: "sha256:aa", contentKey: "k1", approval };

      test("saves the state, records the start and spends the approval, fenced by the claim", async ({
        store,
        queue,
      }) => {
        const claim = await queue.claim("run-a", { owner: "worker-1" });
        await store.save(runState("run-a", { revision: 1, status: "running" }), {
          expectedRevision: 0,
          claim,
        });
        assert.equal(await store.isApprovalUsed(approval), false);
        assert.equal(await store.isApprovalUsed(approval), false, "asking does not spend it");
        const started = await store.startCall(startedState("run-a", 2), start, {
          expectedRevision: 1,
          claim,
        });
        assert.deepEqual(started, { outcome: "started" });
        const stored = await store.load("run-a");
        assert.equal(stored.revision, 2);
        assert.equal(stored.pendingCalls[0]?.phase, "started");
        assert.equal(await store.isApprovalUsed(approval), true);
        await claim.release();
      });
      test("writes nothing for a holder whose lease ran out, though nobody took the run: the call never starts", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        const leaseMs = 300;
        const lapsed = await queue.claim("run-a", { owner: "worker-1", leaseMs });
        await sleep(leaseMs * 2);
        await assertConflict(
          store.startCall(startedState("run-a", 2), start, { expectedRevision: 1, claim: lapsed }),
          "claim",
        );
        assert.equal(await store.isApprovalUsed(approval), false, "the approval is unspent");
        assert.equal((await store.load("run-a")).revision, 1);
        await lapsed.release();
      });
      test("writes nothing for a holder whose claim was taken over: the next owner spends the approval", async ({
        store,
        queue,
      }) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        const stale = await queue.claim("run-a", { owner: "worker-1" });
        const current = await queue.claim("run-a", { owner: "worker-2", takeOver: true });
        await assertConflict(
          store.startCall(startedState("run-a", 2), start, { expectedRevision: 1, claim: stale }),
          "claim",
        );
        assert.equal(await store.isApprovalUsed(approval), false, "the approval is unspent");
        assert.equal((await store.load("run-a")).revision, 1);
        const started = await store.startCall(startedState("run-a", 2), start, {
          expectedRevision: 1,
          claim: current,
        });
        assert.equal(started.outcome, "started");
        await current.release();
      });
      test("records a call's end with the save after it (finishedCall), even when that save is refused", async ({
        store,
        queue,
      }) => {
        const claim = await queue.claim("run-a", { owner: "worker-1" });
        await store.save(runState("run-a", { revision: 1, status: "running" }), {
          expectedRevision: 0,
          claim,
        });
        const write = { toolCallId: "call_1", fingerprint: "sha256:cc", contentKey: "k-end" };
        await store.startCall(startedState("run-a", 2), write, { expectedRevision: 1, claim });
        const finished = runState("run-a", { revision: 3, status: "running", stepCount: 2 });
        await store.save(finished, {
          expectedRevision: 2,
          claim,
          finishedCall: { toolCallId: "call_1", content: '{"deleted":1}' },
        });
        assert.deepEqual(await store.load("run-a"), finished);
        const askedAgain = await store.startCall(
          startedState("run-a", 4, "call_9"),
          { ...write, toolCallId: "call_9" },
          { expectedRevision: 3, claim },
        );
        assert.deepEqual(askedAgain, {
          outcome: "already_started",
          toolCallId: "call_1",
          content: '{"deleted":1}',
        });
        // A stale holder's save is refused, but what its call did is kept.
        await store.startCall(
          startedState("run-a", 4, "call_2"),
          { ...write, toolCallId: "call_2", contentKey: "k-end-2" },
          { expectedRevision: 3, claim },
        );
        const current = await queue.claim("run-a", { owner: "worker-2", takeOver: true });
        await assertConflict(
          store.save(runState("run-a", { revision: 5 }), {
            expectedRevision: 4,
            claim,
            finishedCall: { toolCallId: "call_2", content: '{"deleted":2}' },
          }),
          "claim",
        );
        const byContent = await store.startCall(
          startedState("run-a", 5, "call_8"),
          { ...write, toolCallId: "call_8", contentKey: "k-end-2" },
          { expectedRevision: 4, claim: current },
        );
        assert.deepEqual(byContent, {
          outcome: "already_started",
          toolCallId: "call_2",
          content: '{"deleted":2}',
        });
        await current.release();
      });
    });
  });
}
