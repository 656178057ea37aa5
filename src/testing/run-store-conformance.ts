import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import {
  RunConflictError,
  RunNotFoundError,
  RunNotResumableError,
  RunStateError,
} from "../agent/durable/durable-errors.js";
import type { RunClaim, RunQueue } from "../agent/durable/run-queue.js";
import type { RunState, RunStateStatus } from "../agent/durable/run-state.js";
import { type RunStore, runStoreMethods } from "../agent/durable/run-store.js";
import { ConfigurationError } from "../errors/configuration-error.js";

/** A test body as `it` takes it. */
export type ConformanceTest = () => Promise<void>;

/** What {@link runStoreConformance} needs: your test framework's functions and your store. */
export interface RunStoreConformanceOptions {
  /** Names the suite in the report (`describe` of vitest, jest, mocha or `node:test`). */
  describe: (name: string, body: () => void) => unknown;
  /** Declares one test (`it` or `test` of the same framework). */
  it: (name: string, body: ConformanceTest) => unknown;
  /**
   * Makes an empty store for one test (a new directory, a new schema...).
   * Each test creates its own, so tests never see each other's runs.
   */
  createStore: () => (RunStore & RunQueue) | Promise<RunStore & RunQueue>;
  /** Frees a store `createStore` made (closes its pool). @default nothing */
  closeStore?: ((store: RunStore & RunQueue) => Promise<void> | void) | undefined;
  /** The suite's name. @default "RunStore conformance" */
  name?: string | undefined;
}

/**
 * The contract of a {@link RunStore}, as tests your store must pass: saves
 * and loads whole states, compare-and-set saves, claims that exclude each
 * other and fence a stale holder's saves, claims that expire unless
 * renewed, a call's start and its approval's spending as one fenced write
 * (at most once, by id and by content; approvals of two services apart),
 * `claimNext` handing each due run to one caller, and listing by
 * status with keyset paging. Every method of the contract is required.
 * Assertions use `node:assert`, so any framework runs it.
 *
 * @example
 * // my-store.test.ts (vitest)
 * import { describe, it } from "vitest";
 * import { runStoreConformance } from "switchyard-agents/testing";
 * runStoreConformance({ describe, it, createStore: () => new MyRunStore() });
 */
export function runStoreConformance(options: RunStoreConformanceOptions): void {
  const { describe, it } = options;
  const test = (name: string, body: (store: RunStore & RunQueue) => Promise<void>) =>
    it(name, async () => {
      const store = await options.createStore();
      try {
        await body(store);
      } finally {
        await options.closeStore?.(store);
      }
    });

  describe(options.name ?? "RunStore conformance", () => {
    test("implements every method of the RunStore & RunQueue contract", async (store) => {
      const missing = runStoreMethods.filter((method) => typeof store[method] !== "function");
      assert.deepEqual(missing, [], `the store lacks ${missing.join(", ")}`);
    });

    describe("saving and loading", () => {
      test("loads back exactly the state saved", async (store) => {
        const saved = runState("run-a", { status: "suspended", revision: 1 });
        await store.save(saved);
        assert.deepEqual(await store.load("run-a"), saved);
      });

      test("rejects loading a run it does not hold with RunNotFoundError", async (store) => {
        await assert.rejects(store.load("run-missing"), RunNotFoundError);
      });

      test("replaces a state on save, and forgets it on delete", async (store) => {
        await store.save(runState("run-a", { revision: 1 }));
        const second = runState("run-a", { revision: 2, status: "completed" });
        await store.save(second);
        assert.deepEqual(await store.load("run-a"), second);
        assert.equal(await store.delete("run-a"), true);
        assert.equal(await store.delete("run-a"), false);
        await assert.rejects(store.load("run-a"), RunNotFoundError);
      });
    });

    describe("sealed states", () => {
      test("once given a sealed state, refuses to save an unsealed one, in any run", async (store) => {
        await store.save(runState("run-plain", { revision: 1 }));
        const sealed = runState("run-a", { revision: 1, seal: `hmac-sha256:${"a".repeat(64)}` });
        await store.save(sealed, { expectedRevision: 0 });
        assert.deepEqual(await store.load("run-a"), sealed);
        for (const unsealed of [runState("run-a", { revision: 2 }), runState("run-b")]) {
          await assert.rejects(
            store.save(unsealed, { expectedRevision: unsealed.runId === "run-a" ? 1 : 0 }),
            (error: unknown) => {
              assert.ok(error instanceof RunStateError, `expected a RunStateError, got ${error}`);
              assert.match(error.message, /this store's states are sealed/);
              return true;
            },
          );
        }
        assert.deepEqual(await store.load("run-a"), sealed);
        await assert.rejects(store.load("run-b"), RunNotFoundError);
        // An unsealed state kept from before is not resumed either.
        await assert.rejects(store.load("run-plain"), RunStateError);
      });
    });

    describe("compare-and-set", () => {
      test("creates a run only when none is stored under expectedRevision 0", async (store) => {
        await store.save(runState("run-a", { revision: 1 }), { expectedRevision: 0 });
        const second = store.save(runState("run-a", { revision: 1, stepCount: 9 }), {
          expectedRevision: 0,
        });
        await assertConflict(second, "revision");
        assert.equal((await store.load("run-a")).stepCount, 1);
      });

      test("refuses a save whose expected revision is not the stored one, writing nothing", async (store) => {
        await store.save(runState("run-a", { revision: 1 }), { expectedRevision: 0 });
        await store.save(runState("run-a", { revision: 2 }), { expectedRevision: 1 });
        await assertConflict(
          store.save(runState("run-a", { revision: 2, stepCount: 7 }), { expectedRevision: 1 }),
          "revision",
        );
        const stored = await store.load("run-a");
        assert.equal(stored.revision, 2);
        assert.equal(stored.stepCount, 1);
      });

      test("of two saves from the same revision, exactly one succeeds", async (store) => {
        await store.save(runState("run-a", { revision: 1 }), { expectedRevision: 0 });
        const outcomes = await Promise.allSettled(
          [5, 6].map((stepCount) =>
            store.save(runState("run-a", { revision: 2, stepCount }), { expectedRevision: 1 }),
          ),
        );
        assert.equal(outcomes.filter((outcome) => outcome.status === "fulfilled").length, 1);
        for (const outcome of outcomes) {
          if (outcome.status === "rejected") assert.ok(outcome.reason instanceof RunConflictError);
        }
      });
    });

    describe("claims", () => {
      test("lets one process claim a run at a time, and another once released", async (store) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const first = await store.claim("run-a", { owner: "worker-1" });
        assert.equal(first.runId, "run-a");
        await assert.rejects(store.claim("run-a", { owner: "worker-2" }), (error: unknown) => {
          assert.ok(error instanceof RunNotResumableError);
          assert.equal(error.status, "claimed");
          return true;
        });
        await first.release();
        const second = await store.claim("run-a", { owner: "worker-2" });
        assert.ok(second.token > first.token, "a later claim has a larger fencing token");
        await second.release();
      });

      test("claims a run not saved yet, so a new run is held from its first save", async (store) => {
        const claim = await store.claim("run-new");
        await assert.rejects(store.claim("run-new"), RunNotResumableError);
        await store.save(runState("run-new", { revision: 1, status: "running" }), {
          expectedRevision: 0,
          claim,
        });
        assert.equal((await store.load("run-new")).status, "running");
        await claim.release();
      });

      test("fences only the run a claim was taken on: a claim on one run cannot save another", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "suspended" }));
        await store.save(runState("run-b", { revision: 1, status: "suspended" }));
        const onA = await store.claim("run-a", { owner: "worker-1" });
        const onB = await store.claim("run-b", { owner: "worker-2" });
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

      test("does not delete a run another process holds; its holder can", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "suspended" }));
        const held = await store.claim("run-a", { owner: "worker-1" });
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

      test("fences a holder whose run was taken over: its saves and renewals are refused", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "suspended" }));
        const stale = await store.claim("run-a", { owner: "worker-1" });
        const current = await store.claim("run-a", { owner: "worker-2", takeOver: true });
        assert.equal(current.recovered, true);
        assert.ok(current.token > stale.token);
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
        await assert.rejects(store.claim("run-a"), RunNotResumableError);
        assert.equal((await store.load("run-a")).stepCount, 5);
        await current.release();
      });

      test("ends a claim that is not renewed: a stalled holder loses the run", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        const leaseMs = 300;
        const lapsed = await store.claim("run-a", { leaseMs, owner: "worker-1" });
        assert.ok(lapsed.expiresAt instanceof Date, "a claim says when it expires");
        await sleep(leaseMs * 3);
        const next = await store.claim("run-a", { owner: "worker-2" });
        assert.equal(next.recovered, true, "a claim taken from an expired one is recovered");
        await assertConflict(
          store.save(runState("run-a", { revision: 2 }), { expectedRevision: 1, claim: lapsed }),
          "claim",
        );
        await assertConflict(lapsed.renew(), "claim");
        await next.release();
      });

      test("keeps a claim that is renewed in time", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        const leaseMs = 1_500;
        const kept = await store.claim("run-a", { leaseMs, owner: "worker-1" });
        for (let renewal = 0; renewal < 4; renewal++) {
          await sleep(leaseMs / 3);
          await kept.renew();
        }
        await assert.rejects(store.claim("run-a", { owner: "worker-2" }), RunNotResumableError);
        await store.save(runState("run-a", { revision: 2 }), { expectedRevision: 1, claim: kept });
        await kept.release();
      });
    });

    describe("claimNext", () => {
      test("hands each due suspended run to exactly one of many callers", async (store) => {
        const runIds = Array.from({ length: 12 }, (_, index) => `run-${index}`);
        for (const runId of runIds) await store.save(runState(runId, { status: "suspended" }));
        await store.save(runState("run-done", { status: "completed" }));
        const taken: string[] = [];
        const held: RunClaim[] = [];
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            for (;;) {
              const claim = await store.claimNext({ leaseMs: 30_000 });
              if (!claim) return;
              taken.push(claim.runId);
              held.push(claim);
            }
          }),
        );
        assert.deepEqual([...taken].sort(), [...runIds].sort());
        for (const claim of held) await claim.release();
      });

      test("leaves a run until its next check time once released with one", async (store) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const claim = await store.claimNext();
        assert.equal(claim?.runId, "run-a");
        await claim?.release({ nextCheckAt: new Date(Date.now() + 60_000) });
        assert.equal(await store.claimNext(), undefined);
        const again = await store.claim("run-a");
        await again.release({ nextCheckAt: new Date(Date.now() - 1000) });
        const due = await store.claimNext();
        assert.equal(due?.runId, "run-a");
        await due?.release();
      });

      test("recovers a running run whose claim expired (its holder stalled or died)", async (store) => {
        const leaseMs = 300;
        const claim = await store.claim("run-a", { leaseMs });
        await store.save(runState("run-a", { revision: 1, status: "running" }), {
          expectedRevision: 0,
          claim,
        });
        assert.equal(await store.claimNext(), undefined, "a held run is not handed out");
        await sleep(leaseMs * 3);
        const recovered = await store.claimNext();
        assert.equal(recovered?.runId, "run-a");
        assert.equal(recovered?.recovered, true);
        await recovered?.release();
      });
    });

    describe("claimDue: several due runs at once (optional)", () => {
      // A store without claimDue (it is optional) passes these as they stand.
      const testClaimDue = (
        name: string,
        body: (store: RunStore & RunQueue, claimDue: RunQueue["claimDue"]) => Promise<void>,
      ) =>
        test(name, async (store) => {
          if (typeof store.claimDue !== "function") return;
          await body(store, store.claimDue.bind(store));
        });

      testClaimDue(
        "claims several due runs in one call, oldest due first, each under a claim of its own",
        async (store, claimDue) => {
          const earlier = await store.claim("run-earlier");
          await earlier.release();
          for (const [index, runId] of ["run-a", "run-b", "run-c", "run-d", "run-e"].entries()) {
            await store.save(runState(runId, { status: "suspended" }));
            const claim = await store.claim(runId);
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
          assert.equal(await store.wake("run-a"), false, "a run claimed so is held");
          await assert.rejects(store.claim("run-b"), RunNotResumableError);
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
        async (store, claimDue) => {
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
        async (store, claimDue) => {
          const runIds = Array.from({ length: 8 }, (_, index) => `run-${index}`);
          for (const runId of runIds) await store.save(runState(runId, { status: "suspended" }));
          // A run not waiting for an answer (its holder died) costs no check.
          await saveRunWhoseHolderDied(store, "run-other");
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
        async (store, claimDue) => {
          assert.deepEqual(await claimDue({ max: 5 }), []);
          await store.save(runState("run-later", { status: "suspended" }));
          const claim = await store.claim("run-later");
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
      test("counts the failed attempts in a row and keeps the last error, until one goes through", async (store) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const first = await store.claim("run-a");
        assert.equal(first.attempts, 0);
        await first.release({ nextCheckAt: new Date(Date.now() - 1_000), error: "first failure" });
        const second = await store.claimNext();
        assert.equal(second?.runId, "run-a");
        assert.equal(second?.attempts, 1, "claimNext says how many attempts failed");
        await second?.release({ nextCheckAt: new Date(Date.now() + 3_600_000), error: "second" });
        const failing = await store.schedule("run-a");
        assert.equal(failing?.attempts, 2);
        assert.equal(failing?.lastError, "second");
        assert.ok(
          failing?.nextCheckAt && failing.nextCheckAt.getTime() > Date.now() + 1_800_000,
          `the next check is the one released with, an hour on; got ${failing?.nextCheckAt?.toISOString()}`,
        );
        assert.equal((await store.load("run-a")).revision, 1, "the state is not rewritten");
        const third = await store.claim("run-a");
        assert.equal(third.attempts, 2);
        await third.release();
        const recovered = await store.schedule("run-a");
        assert.equal(recovered?.attempts, 0, "an attempt that went through ends the series");
        assert.equal(recovered?.lastError, undefined);
        assert.equal(await store.schedule("run-missing"), undefined);
        await store.save(runState("run-done", { status: "completed" }));
        assert.equal((await store.schedule("run-done"))?.nextCheckAt, undefined);
      });

      test("a save that ends its claim ends the series too; a run ended failed keeps its count", async (store) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const failing = await store.claim("run-a");
        await failing.release({ error: "first failure" });
        const resumed = await store.claim("run-a");
        assert.equal(resumed.attempts, 1);
        await store.save(runState("run-a", { status: "completed", revision: 2 }), {
          expectedRevision: 1,
          claim: resumed,
          release: true,
        });
        const completed = await store.schedule("run-a");
        assert.equal(completed?.attempts, 0, "the save that ended the claim ended the series");
        assert.equal(completed?.lastError, undefined);

        // What a worker giving up does: the failed state under the claim, then the last attempt.
        await store.save(runState("run-b", { status: "suspended" }));
        const last = await store.claim("run-b");
        await store.save(runState("run-b", { status: "failed", revision: 2 }), {
          expectedRevision: 1,
          claim: last,
        });
        await last.release({ error: "the last failure" });
        const failed = await store.schedule("run-b");
        assert.equal(failed?.attempts, 1);
        assert.equal(failed?.lastError, "the last failure");
        assert.equal(failed?.nextCheckAt, undefined);
        assert.equal(await store.claimNext(), undefined, "a failed run is never handed out");
      });

      test("a release with keepAttempts leaves the count and the last error as they are", async (store) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const failing = await store.claim("run-a");
        await failing.release({ error: "the run's own failure" });
        const untried = await store.claim("run-a");
        await untried.release({ nextCheckAt: new Date(Date.now() - 1_000), keepAttempts: true });
        const kept = await store.schedule("run-a");
        assert.equal(kept?.attempts, 1);
        assert.equal(kept?.lastError, "the run's own failure");
        const next = await store.claimNext();
        assert.equal(next?.runId, "run-a", "due as the release said");
        assert.equal(next?.attempts, 1);
        await next?.release();
        assert.equal((await store.schedule("run-a"))?.attempts, 0);
      });
    });

    describe("a budget of approval checks (claimNext checksPerSecond)", () => {
      test("hands out runs waiting for answers no faster than the budget, oldest due first, and other due runs as usual", async (store) => {
        // One check saved up; the next only after 1,000 s.
        const budget = { checksPerSecond: 0.001 };
        // A run whose holder died is recovered whatever the budget.
        await saveRunWhoseHolderDied(store, "run-other");
        for (const [runId, agoMs] of [
          ["run-a", 3_000],
          ["run-b", 2_000],
          ["run-c", 1_000],
        ] as const) {
          await store.save(runState(runId));
          const claim = await store.claim(runId);
          await claim.release({ nextCheckAt: new Date(Date.now() - agoMs) });
        }
        const taken: RunClaim[] = [];
        const take = async (options = budget) => {
          const claim = await store.claimNext(options);
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
        await assert.rejects(store.claimNext({ checksPerSecond: 0 }), ConfigurationError);
        for (const claim of taken) await claim.release();
      });
    });

    describe("wake and waitForDue", () => {
      test("wake makes a suspended run due now, and only a suspended run no one holds", async (store) => {
        await store.save(runState("run-a", { status: "suspended" }));
        await store.save(runState("run-done", { status: "completed" }));
        const claim = await store.claimNext();
        assert.equal(claim?.runId, "run-a");
        assert.equal(await store.wake("run-a"), false, "a held run is left to its holder");
        await claim?.release({ nextCheckAt: new Date(Date.now() + 3_600_000) });
        assert.equal(await store.claimNext(), undefined);
        assert.equal(await store.wake("run-a"), true);
        const due = await store.claimNext();
        assert.equal(due?.runId, "run-a", "a woken run is due at once");
        await due?.release();
        assert.equal(await store.wake("run-done"), false, "a run that ended is not woken");
        // A woken run goes before runs due earlier (its answer is known).
        await store.save(runState("run-b", { status: "suspended" }));
        const early = await store.claim("run-b");
        await early.release({ nextCheckAt: new Date(Date.now() - 60_000) });
        const later = await store.claim("run-a");
        await later.release({ nextCheckAt: new Date(Date.now() + 3_600_000) });
        assert.equal(await store.wake("run-a"), true);
        const first = await store.claimNext({ checksPerSecond: 0.001 });
        assert.equal(first?.runId, "run-a", "the woken run is taken first");
        assert.equal(await store.claimNext({ checksPerSecond: 0.001 }), undefined);
        await first?.release();
        assert.equal(await store.wake("run-missing"), false);
      });

      test("a woken run goes before a run suspended earlier that was never checked", async (store) => {
        // Due since it was saved, and never looked at: due earlier than any check time.
        await store.save(runState("run-early", { status: "suspended" }));
        await store.save(runState("run-a", { status: "suspended" }));
        const checked = await store.claim("run-a");
        await checked.release({ nextCheckAt: new Date(Date.now() + 3_600_000) });
        assert.equal(await store.wake("run-a"), true);
        const first = await store.claimNext({ checksPerSecond: 0.001 });
        assert.equal(first?.runId, "run-a", "the woken run is taken first");
        await first?.release();
        const rest = await store.claimNext();
        assert.equal(rest?.runId, "run-early");
        await rest?.release();
      });

      test("waitForDue ends on a wake, after its time, or on its signal", async (store) => {
        await store.save(runState("run-a", { status: "suspended" }));
        const claim = await store.claim("run-a");
        await claim.release({ nextCheckAt: new Date(Date.now() + 3_600_000) });
        // Nothing announced: the wait runs its time out (or says so at once,
        // for a store that was told of a run earlier), never rejects.
        await store.waitForDue({ timeoutMs: 20 });
        assert.equal(await store.waitForDue({ timeoutMs: 20 }), "timeout");
        const stop = new AbortController();
        const stopped = store.waitForDue({ timeoutMs: 3_600_000, signal: stop.signal });
        stop.abort();
        assert.equal(await stopped, "aborted");
        // An hour-long wait ends because of the wake, not its time.
        const waiting = store.waitForDue({ timeoutMs: 3_600_000 });
        assert.equal(await store.wake("run-a"), true);
        assert.equal(await waiting, "notified");
      });
    });

    describe("a claim's state", () => {
      test("is, when a claim carries one, the state stored, and is gone once a save is made under the claim", async (store) => {
        const stored = runState("run-a", { revision: 1, status: "suspended" });
        await store.save(stored);
        const claim = await store.claimNext({ owner: "worker-1" });
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
      test("ends the claim with the save: another process takes the run at once; a refused save releases nothing", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        const first = await store.claim("run-a", { owner: "worker-1" });
        await store.save(runState("run-a", { revision: 2, status: "completed" }), {
          expectedRevision: 1,
          claim: first,
          release: true,
        });
        const second = await store.claim("run-a", { owner: "worker-2" });
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
        await assert.rejects(store.claim("run-a", { owner: "worker-3" }), RunNotResumableError);
        await second.release();
      });
    });

    describe("starting a call (an approval spent with its call's start, in one write)", () => {
      const approval = { service: "https://messaging.example.com/", interactionId: "i_1" };
      const start = { toolCallId: "call_1", fingerprint: "sha256:aa", contentKey: "k1", approval };

      test("saves the state, records the start and spends the approval, fenced by the claim", async (store) => {
        const claim = await store.claim("run-a", { owner: "worker-1" });
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

      test("writes nothing for a holder whose claim was taken over: the next owner spends the approval", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        const stale = await store.claim("run-a", { owner: "worker-1" });
        const current = await store.claim("run-a", { owner: "worker-2", takeOver: true });
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

      test("writes nothing when the revision does not hold, and lets exactly one of many start", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        await assertConflict(
          store.startCall(startedState("run-a", 3), start, { expectedRevision: 2 }),
          "revision",
        );
        assert.equal(await store.isApprovalUsed(approval), false);
        const outcomes = await Promise.allSettled(
          Array.from({ length: 6 }, () =>
            store.startCall(startedState("run-a", 2), start, { expectedRevision: 1 }),
          ),
        );
        const started = outcomes.filter(
          (outcome) => outcome.status === "fulfilled" && outcome.value.outcome === "started",
        );
        assert.equal(started.length, 1);
        for (const outcome of outcomes) {
          if (outcome.status === "rejected") {
            assert.ok(outcome.reason instanceof RunConflictError, String(outcome.reason));
          }
        }
      });

      test("refuses an approval spent by another run as already_used, even once that run is deleted", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        await store.save(runState("run-b", { revision: 1, status: "running" }));
        await store.startCall(startedState("run-a", 2), start, { expectedRevision: 1 });
        const other = await store.startCall(startedState("run-b", 2), start, {
          expectedRevision: 1,
        });
        assert.equal(other.outcome, "already_used");
        assert.equal((await store.load("run-b")).revision, 1, "nothing was written");
        await store.delete("run-a");
        const again = await store.startCall(startedState("run-b", 2), start, {
          expectedRevision: 1,
        });
        assert.equal(again.outcome, "already_used");
        assert.equal(await store.isApprovalUsed(approval), true);
      });

      test("lets one of many runs spending the same approval at once start; the others are told already_used", async (store) => {
        const runIds = ["run-a", "run-b", "run-c", "run-d", "run-e", "run-f"];
        for (const runId of runIds) {
          await store.save(runState(runId, { revision: 1, status: "running" }));
        }
        const outcomes = await Promise.all(
          runIds.map((runId) =>
            store.startCall(startedState(runId, 2), start, { expectedRevision: 1 }),
          ),
        );
        const started = runIds.filter((_, index) => outcomes[index]?.outcome === "started");
        assert.equal(started.length, 1, JSON.stringify(outcomes));
        for (const [index, runId] of runIds.entries()) {
          const stored = await store.load(runId);
          if (runId === started[0]) {
            assert.equal(stored.revision, 2);
            continue;
          }
          assert.deepEqual(outcomes[index], {
            outcome: "already_used",
            runId: started[0],
            toolCallId: "call_1",
          });
          assert.equal(stored.revision, 1, `nothing was written for ${runId}`);
        }
      });

      test("keeps the interaction ids of two services apart", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        await store.save(runState("run-b", { revision: 1, status: "running" }));
        await store.startCall(startedState("run-a", 2), start, { expectedRevision: 1 });
        const elsewhere = { service: "https://other-messaging.example.com/", interactionId: "i_1" };
        assert.equal(await store.isApprovalUsed(elsewhere), false);
        const started = await store.startCall(
          startedState("run-b", 2),
          { ...start, approval: elsewhere },
          { expectedRevision: 1 },
        );
        assert.equal(started.outcome, "started");
      });

      test("recognises a call the run started, by its id and by its content under a new id", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        const write = { toolCallId: "call_1", fingerprint: "sha256:bb", contentKey: "k-create" };
        await store.startCall(startedState("run-a", 2), write, { expectedRevision: 1 });
        const sameId = await store.startCall(
          startedState("run-a", 3),
          { ...write, contentKey: "k-other" },
          { expectedRevision: 2 },
        );
        assert.deepEqual(sameId, { outcome: "already_started", toolCallId: "call_1" });
        await store.recordFinish("run-a", "call_1", '{"created":1}');
        const askedAgain = await store.startCall(
          startedState("run-a", 3, "call_9"),
          { ...write, toolCallId: "call_9" },
          { expectedRevision: 2 },
        );
        assert.equal(askedAgain.outcome, "already_started");
        if (askedAgain.outcome === "already_started") {
          assert.equal(askedAgain.toolCallId, "call_1");
          assert.equal(askedAgain.content, '{"created":1}');
        }
        assert.equal((await store.load("run-a")).revision, 2, "nothing was written");
      });

      test("records a call's end with the save after it (finishedCall), even when that save is refused", async (store) => {
        const claim = await store.claim("run-a", { owner: "worker-1" });
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
        const current = await store.claim("run-a", { owner: "worker-2", takeOver: true });
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

    describe("listing", () => {
      test("lists summaries by status, most recently saved first", async (store) => {
        // A few milliseconds apart, for a store whose own clock counts them.
        await store.save(runState("run-a", { status: "suspended", updatedAt: at(1) }));
        await sleep(10);
        await store.save(runState("run-b", { status: "completed", updatedAt: at(2) }));
        await sleep(10);
        await store.save(runState("run-c", { status: "suspended", updatedAt: at(3) }));
        const { runs, unreadable } = await store.list({ status: "suspended" });
        assert.deepEqual(
          runs.map((run) => run.runId),
          ["run-c", "run-a"],
        );
        assert.deepEqual(unreadable, []);
        const [first] = runs;
        assert.equal(first?.status, "suspended");
        // The state's time, or the store's own time of the save (a shared store's).
        assert.ok(!Number.isNaN(Date.parse(first?.updatedAt ?? "")), "updatedAt is a time");
        assert.deepEqual(first?.pendingCalls, [
          {
            toolCallId: "call_1",
            toolName: "delete_callbacks",
            phase: "awaiting_approval",
            interactionId: "i_1",
          },
        ]);
        assert.equal("messages" in (first ?? {}), false, "a summary holds no conversation");
        const both = await store.list({ status: ["completed", "suspended"] });
        assert.equal(both.runs.length, 3);
      });

      test("pages through runs with a cursor, each exactly once, in a stable order", async (store) => {
        const updatedAt = at(5);
        const runIds = ["run-e", "run-a", "run-d", "run-b", "run-c"];
        for (const runId of runIds) await store.save(runState(runId, { updatedAt }));
        // A store's own clock may count milliseconds: the last save comes a few later.
        await sleep(10);
        await store.save(runState("run-newest", { updatedAt: at(9) }));
        const whole = (await store.list({ limit: 1000 })).runs.map((run) => run.runId);
        assert.equal(whole[0], "run-newest", "the run saved last comes first");
        assert.deepEqual([...whole].sort(), [...runIds, "run-newest"].sort());
        const seen: string[] = [];
        let after: string | undefined;
        for (let page = 0; page < 10; page++) {
          const listed = await store.list({ limit: 2, ...(after ? { after } : {}) });
          assert.ok(listed.runs.length <= 2);
          seen.push(...listed.runs.map((run) => run.runId));
          after = listed.nextCursor;
          if (!after) break;
        }
        assert.deepEqual(seen, whole);
      });

      test("tells a run's age by its own clock of the last save, not by the time the state carries", async (store) => {
        // Saved now by a worker whose clock is far behind: its state says it is old.
        await store.save(runState("run-a", { updatedAt: at(0), createdAt: at(0) }));
        assert.deepEqual((await store.list({ olderThanMs: 3_600_000 })).runs, []);
        await sleep(50);
        assert.deepEqual(
          (await store.list({ olderThanMs: 10 })).runs.map((run) => run.runId),
          ["run-a"],
        );
        await assert.rejects(store.list({ olderThanMs: -1 }), ConfigurationError);
      });

      test("refuses a cursor it did not make, and a limit out of range", async (store) => {
        await assert.rejects(store.list({ after: "not a cursor" }), ConfigurationError);
        await assert.rejects(store.list({ limit: 0 }), ConfigurationError);
      });
    });
  });
}

async function assertConflict(
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
async function saveRunWhoseHolderDied(store: RunStore & RunQueue, runId: string): Promise<void> {
  const leaseMs = 300;
  const dead = await store.claim(runId, { leaseMs });
  await store.save(runState(runId, { status: "running" }), { expectedRevision: 0, claim: dead });
  await sleep(leaseMs * 3);
}

function at(minute: number): string {
  return new Date(Date.UTC(2026, 0, 1, 9, minute)).toISOString();
}

/** A running state whose call (`call_1` unless named) is `started`, having spent approval `i_1`. */
function startedState(runId: string, revision: number, toolCallId = "call_1"): RunState {
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
    pendingCalls: [{ ...call, toolCallId, phase: "started", interactionId: "i_1" }],
    usedApprovals: ["i_1"],
  };
}

/** A valid state waiting for one approval answer, with what the test changes. */
function runState(
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
