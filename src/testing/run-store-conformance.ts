import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import {
  RunConflictError,
  RunNotFoundError,
  RunStateError,
} from "../agent/durable/durable-errors.js";
import { type RunStore, runStoreMethods } from "../agent/durable/run-store.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { missingMethods } from "../internal/missing-methods.js";
import { assertConflict, at, runState, startedState } from "./conformance-states.js";
import { type ConformanceTest, declareConformanceTest } from "./declare-conformance-test.js";

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
  createStore: () => RunStore | Promise<RunStore>;
  /** Frees a store `createStore` made (closes its pool). @default nothing */
  closeStore?: ((store: RunStore) => Promise<void> | void) | undefined;
  /** The suite's name. @default "RunStore conformance" */
  name?: string | undefined;
}

/**
 * The contract of a {@link RunStore}, as tests your store must pass: saves
 * and loads whole states, compare-and-set saves, a call's start and its
 * approval's spending as one write fenced by the revision (at most once,
 * by id and by content; each approval id spent once), a call's end
 * kept even when its save is refused, and listing by status with keyset
 * paging; an interaction bound to one question, once, atomically. Every
 * method of the contract is required. Assertions use
 * `node:assert`, so any framework runs it. A store that is also a run
 * queue runs `runQueueConformance` too.
 *
 * @example
 * // my-store.test.ts (vitest)
 * import { describe, it } from "vitest";
 * import { runStoreConformance } from "switchyard-agents/testing";
 * runStoreConformance({ describe, it, createStore: () => new MyRunStore() });
 */
export function runStoreConformance(options: RunStoreConformanceOptions): void {
  const { describe, it } = options;
  const subject = {
    make: () => options.createStore(),
    free: (store: RunStore) => options.closeStore?.(store),
  };
  const test = (name: string, body: (store: RunStore) => Promise<void>) =>
    declareConformanceTest(it, name, subject, body);

  describe(options.name ?? "RunStore conformance", () => {
    test("implements every method of the RunStore contract", async (store) => {
      const missing = missingMethods(store, runStoreMethods);
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

    describe("starting a call (an approval spent with its call's start, in one write)", () => {
      const approval = "run-a.3q2-7wEiRKe8sYdq5Bn0WQ";
      const start = { toolCallId: "call_1", fingerprint: "sha256:aa", contentKey: "k1", approval };
      test("saves the state, records the start and spends the approval, fenced by the revision", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }), {
          expectedRevision: 0,
        });
        assert.equal(await store.isApprovalUsed(approval), false);
        assert.equal(await store.isApprovalUsed(approval), false, "asking does not spend it");
        const started = await store.startCall(startedState("run-a", 2), start, {
          expectedRevision: 1,
        });
        assert.deepEqual(started, { outcome: "started" });
        const stored = await store.load("run-a");
        assert.equal(stored.revision, 2);
        assert.equal(stored.pendingCalls[0]?.phase, "started");
        assert.equal(await store.isApprovalUsed(approval), true);
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

      test("keeps two approval ids apart", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "running" }));
        await store.save(runState("run-b", { revision: 1, status: "running" }));
        await store.startCall(startedState("run-a", 2), start, { expectedRevision: 1 });
        const elsewhere = "run-b.Zm9vYmFyYmF6cXV4cXV1eA";
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
        await store.save(runState("run-a", { revision: 1, status: "running" }), {
          expectedRevision: 0,
        });
        const write = { toolCallId: "call_1", fingerprint: "sha256:cc", contentKey: "k-end" };
        await store.startCall(startedState("run-a", 2), write, { expectedRevision: 1 });
        const finished = runState("run-a", { revision: 3, status: "running", stepCount: 2 });
        await store.save(finished, {
          expectedRevision: 2,
          finishedCall: { toolCallId: "call_1", content: '{"deleted":1}' },
        });
        assert.deepEqual(await store.load("run-a"), finished);
        const askedAgain = await store.startCall(
          startedState("run-a", 4, "call_9"),
          { ...write, toolCallId: "call_9" },
          { expectedRevision: 3 },
        );
        assert.deepEqual(askedAgain, {
          outcome: "already_started",
          toolCallId: "call_1",
          content: '{"deleted":1}',
        });
        // A save from an older revision is refused, but what its call did is kept.
        await store.startCall(
          startedState("run-a", 4, "call_2"),
          { ...write, toolCallId: "call_2", contentKey: "k-end-2" },
          { expectedRevision: 3 },
        );
        await assertConflict(
          store.save(runState("run-a", { revision: 5 }), {
            expectedRevision: 3,
            finishedCall: { toolCallId: "call_2", content: '{"deleted":2}' },
          }),
          "revision",
        );
        const byContent = await store.startCall(
          startedState("run-a", 5, "call_8"),
          { ...write, toolCallId: "call_8", contentKey: "k-end-2" },
          { expectedRevision: 4 },
        );
        assert.deepEqual(byContent, {
          outcome: "already_started",
          toolCallId: "call_2",
          content: '{"deleted":2}',
        });
      });
    });

    describe("binding an interaction to its question (an answer approves one question, ever)", () => {
      const binding = {
        approverLink: "sl_approver",
        interactionId: "i_1",
        question: "sha256:question-of-run-a",
        runId: "run-a",
      };
      test("binds an interaction once: the same question again is bound, another question is taken, in any run", async (store) => {
        assert.deepEqual(await store.bindInteraction(binding), { outcome: "bound" });
        assert.deepEqual(await store.bindInteraction(binding), { outcome: "bound" });
        const other = { ...binding, question: "sha256:question-of-run-b", runId: "run-b" };
        assert.deepEqual(await store.bindInteraction(other), { outcome: "taken", runId: "run-a" });
        const sameRun = { ...binding, question: "sha256:another-question-of-run-a" };
        assert.deepEqual(await store.bindInteraction(sameRun), {
          outcome: "taken",
          runId: "run-a",
        });
        // The first question keeps it.
        assert.deepEqual(await store.bindInteraction(binding), { outcome: "bound" });
      });
      test("keeps each link's interactions apart, and the binding outlives the run's delete", async (store) => {
        await store.save(runState("run-a", { revision: 1, status: "suspended" }));
        assert.deepEqual(await store.bindInteraction(binding), { outcome: "bound" });
        const otherQuestion = { question: "sha256:question-of-run-b", runId: "run-b" };
        for (const elsewhere of [
          { ...binding, ...otherQuestion, approverLink: "sl_second" },
          { ...binding, ...otherQuestion, interactionId: "i_2" },
        ]) {
          assert.deepEqual(await store.bindInteraction(elsewhere), { outcome: "bound" });
        }
        await store.delete("run-a");
        assert.deepEqual(await store.bindInteraction({ ...binding, ...otherQuestion }), {
          outcome: "taken",
          runId: "run-a",
        });
      });
      test("of many questions binding one interaction at once, exactly one is bound; the others are told whose it is", async (store) => {
        const runIds = ["run-a", "run-b", "run-c", "run-d", "run-e", "run-f"];
        const outcomes = await Promise.all(
          runIds.map((runId) =>
            store.bindInteraction({ ...binding, runId, question: `sha256:question-of-${runId}` }),
          ),
        );
        const bound = runIds.filter((_, index) => outcomes[index]?.outcome === "bound");
        assert.equal(bound.length, 1, JSON.stringify(outcomes));
        for (const [index, runId] of runIds.entries()) {
          if (runId === bound[0]) continue;
          assert.deepEqual(outcomes[index], { outcome: "taken", runId: bound[0] });
        }
      });
      test("refuses a binding that does not name a link, an interaction, a question and a run", async (store) => {
        for (const field of ["approverLink", "interactionId", "question", "runId"]) {
          await assert.rejects(
            store.bindInteraction({ ...binding, [field]: "" }),
            (error: unknown) => {
              assert.ok(
                error instanceof ConfigurationError,
                `expected a ConfigurationError, got ${error}`,
              );
              assert.ok(error.message.includes(field), error.message);
              return true;
            },
          );
        }
        assert.deepEqual(await store.bindInteraction(binding), { outcome: "bound" });
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

      test("lists only the runs whose id starts with runIdPrefix, a prefix's own _ and % taken as text", async (store) => {
        for (const runId of ["agui_k1_1", "agui_k1_2", "agui_k10_1", "agui_kx1_1", "run-a"]) {
          await store.save(runState(runId));
        }
        const listed = async (runIdPrefix: string) =>
          (await store.list({ runIdPrefix })).runs.map((run) => run.runId).sort();
        assert.deepEqual(await listed("agui_k1_"), ["agui_k1_1", "agui_k1_2"]);
        assert.deepEqual(await listed("agui_k"), [
          "agui_k10_1",
          "agui_k1_1",
          "agui_k1_2",
          "agui_kx1_1",
        ]);
        assert.deepEqual(await listed("agui_k%"), []);
        assert.deepEqual(await listed("nothing_"), []);
        const paged = await store.list({ runIdPrefix: "agui_k1_", limit: 1 });
        assert.equal(paged.runs.length, 1);
        assert.ok(paged.nextCursor, "a page of the prefix's runs has a next");
        const rest = await store.list({ runIdPrefix: "agui_k1_", after: paged.nextCursor });
        assert.deepEqual([...paged.runs, ...rest.runs].map((run) => run.runId).sort(), [
          "agui_k1_1",
          "agui_k1_2",
        ]);
        await assert.rejects(store.list({ runIdPrefix: "x".repeat(129) }), ConfigurationError);
      });

      test("refuses a cursor it did not make, and a limit out of range", async (store) => {
        await assert.rejects(store.list({ after: "not a cursor" }), ConfigurationError);
        await assert.rejects(store.list({ limit: 0 }), ConfigurationError);
      });
    });
  });
}
