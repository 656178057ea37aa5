import { spawn } from "node:child_process";
import { readdir, readFile, rename, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { threadId } from "node:worker_threads";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import {
  RunConflictError,
  RunNotFoundError,
  RunStateError,
  RunStoreError,
} from "../../src/agent/durable/durable-errors.js";
import type { RunState } from "../../src/agent/durable/run-state.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import {
  callbackTools,
  listAndDelete,
  useTemporaryDirectories,
} from "../agent/durable/durable-helpers.js";
import { endedRunState, suspendedRunState } from "../helpers/run-state-fixtures.js";

const makeDirectory = useTemporaryDirectories();

afterEach(() => {
  vi.unstubAllEnvs();
});

const state = endedRunState;

function suspended(runId: string, updatedAt: string): RunState {
  return suspendedRunState(runId, { updatedAt });
}

describe("FileRunStore", () => {
  it("saves one private file per run and loads it back", async () => {
    const directory = await makeDirectory();
    const store = new FileRunStore({ directory });
    await store.save(state("run_a"));
    const file = join(directory, "runs", "run_a.json");
    expect(store.pathOf("run_a")).toBe(file);
    expect(await store.load("run_a")).toEqual(state("run_a"));
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual(state("run_a"));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(directory, "runs"))).toEqual(["run_a.json"]);
  });

  it("replaces a run's state whole, even with many saves at once", async () => {
    const directory = await makeDirectory();
    const store = new FileRunStore({ directory });
    const versions = Array.from({ length: 20 }, (_, index) =>
      state("run_a", {
        stepCount: index,
        messages: [{ role: "user", content: "x".repeat(index * 500) }],
      }),
    );
    await Promise.all(versions.map((version) => store.save(version)));
    const loaded = await store.load("run_a");
    expect(versions).toContainEqual(loaded);
    expect(await readdir(join(directory, "runs"))).toEqual(["run_a.json"]);
  });

  it("lists runs by status, most recently updated first", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    await store.save(suspended("run_old", "2025-05-12T09:00:00Z"));
    await store.save(state("run_new", { status: "running", updatedAt: "2025-05-12T10:00:00Z" }));
    await store.save(state("run_done", { updatedAt: "2025-05-12T11:00:00Z" }));

    const all = await store.list();
    expect(all.runs.map((run) => run.runId)).toEqual(["run_done", "run_new", "run_old"]);
    expect(all.unreadable).toEqual([]);
    const waiting = await store.list({ status: "suspended" });
    expect(waiting.runs).toEqual([
      {
        runId: "run_old",
        status: "suspended",
        createdAt: "2025-05-12T09:30:00.000Z",
        updatedAt: "2025-05-12T09:00:00Z",
        stepCount: 1,
        pendingCalls: [
          {
            toolCallId: "call_1",
            toolName: "delete_callbacks",
            phase: "awaiting_approval",
            interactionId: "i_1",
          },
        ],
      },
    ]);
    const open = await store.list({ status: ["running", "suspended"] });
    expect(open.runs.map((run) => run.runId)).toEqual(["run_new", "run_old"]);
  });

  it("lists the readable runs and names each unreadable file with what is wrong", async () => {
    const directory = await makeDirectory();
    const store = new FileRunStore({ directory });
    await store.save(state("run_good"));
    const runs = join(directory, "runs");
    await writeFile(join(runs, "run_torn.json"), '{"format": "switchyard.run-state", "vers');
    await writeFile(join(runs, "run_foreign.json"), JSON.stringify({ name: "package" }));
    await writeFile(
      join(runs, "run_future.json"),
      JSON.stringify({ ...state("run_future"), version: 7 }),
    );
    await writeFile(join(runs, "notes.txt"), "not a run");
    await writeFile(join(runs, ".run_x.1234.tmp"), "{");

    const listed = await store.list();
    expect(listed.runs.map((run) => run.runId)).toEqual(["run_good"]);
    expect(listed.unreadable.map((error) => [error.source, error.problems[0]])).toEqual([
      [
        join(runs, "run_foreign.json"),
        'it has no "format" marker, so it is not a Switchyard run state (expected "format": "switchyard.run-state")',
      ],
      [
        join(runs, "run_future.json"),
        "it was written in run-state format version 7, newer than this Switchyard reads (1 to 1); upgrade Switchyard to resume it",
      ],
      [join(runs, "run_torn.json"), expect.stringMatching(/^it is not valid JSON/)],
    ]);
    expect(listed.unreadable.every((error) => error instanceof RunStateError)).toBe(true);
  });

  it("says which run is missing, and refuses a file renamed to another run's id", async () => {
    const directory = await makeDirectory();
    const store = new FileRunStore({ directory });
    await expect(store.load("run_missing")).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(store.load("run_missing")).rejects.toThrow(
      `No run "run_missing" in the run store at ${directory}`,
    );
    await store.save(state("run_a"));
    await rename(join(directory, "runs", "run_a.json"), join(directory, "runs", "run_b.json"));
    await expect(store.load("run_b")).rejects.toThrow(
      'it holds run "run_a", not "run_b"; the file was renamed or copied by hand',
    );
  });

  it.each(["../escape", "a/b", "", ".hidden", "run..x", "x".repeat(129)])(
    "refuses the unsafe run id %j",
    async (runId) => {
      const store = new FileRunStore({ directory: await makeDirectory() });
      await expect(store.load(runId)).rejects.toBeInstanceOf(ConfigurationError);
      await expect(store.save(state(runId))).rejects.toBeInstanceOf(RunStateError);
    },
  );

  it("deletes a run, and says when there was none", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    await store.save(state("run_a"));
    expect(await store.delete("run_a")).toBe(true);
    expect(await store.delete("run_a")).toBe(false);
    expect((await store.list()).runs).toEqual([]);
  });

  it("refuses to write a state that is not valid, and writes nothing", async () => {
    const directory = await makeDirectory();
    const store = new FileRunStore({ directory });
    const bad = { ...state("run_a"), stepCount: "two" } as unknown as RunState;
    await expect(store.save(bad)).rejects.toThrow(
      "Invalid run state (the state to save): stepCount must be an integer of 0 or more",
    );
    expect((await store.list()).runs).toEqual([]);
  });

  it("fails a save with a RunStoreError naming the file when the directory cannot be made", async () => {
    const directory = await makeDirectory();
    await writeFile(join(directory, "runs"), "a file where the folder should be");
    const store = new FileRunStore({ directory });
    const saving = store.save(state("run_a"));
    await expect(saving).rejects.toBeInstanceOf(RunStoreError);
    await expect(saving).rejects.toThrow(
      `Could not save run "run_a" to ${join(directory, "runs", "run_a.json")}`,
    );
  });

  it("lives in SWITCHYARD_STATE_DIR, else in .switchyard in the working directory", async () => {
    const directory = await makeDirectory();
    vi.stubEnv("SWITCHYARD_STATE_DIR", directory);
    expect(new FileRunStore().directory).toBe(directory);
    vi.stubEnv("SWITCHYARD_STATE_DIR", "");
    expect(new FileRunStore().directory).toBe(resolve(process.cwd(), ".switchyard"));
    expect(() => new FileRunStore({ directory: " " })).toThrow(ConfigurationError);
  });
});

describe("an agent with a FileRunStore", () => {
  it("is resumed by id by a new agent, as a new process would", async () => {
    const directory = await makeDirectory();
    const first = callbackTools();
    const suspended = await new Agent({
      model: new ScriptedModel([listAndDelete]),
      tools: first.tools,
      approver: new ScriptedApprover(["pending"]),
      runStore: new FileRunStore({ directory }),
    }).run("delete cb-1 and cb-2", { suspendOnApproval: true });
    expect(suspended.status).toBe("suspended");
    const runId = suspended.runId ?? "";

    // Everything below is built anew: nothing is shared with the first agent but the directory.
    const store = new FileRunStore({ directory });
    expect((await store.list({ status: "suspended" })).runs).toEqual([
      expect.objectContaining({
        runId,
        pendingCalls: [
          { toolCallId: "call_list", toolName: "list_callbacks", phase: "finished" },
          {
            toolCallId: "call_delete",
            toolName: "delete_callbacks",
            phase: "awaiting_approval",
          },
        ],
      }),
    ]);
    const second = callbackTools();
    const model = new ScriptedModel([{ text: "deleted" }]);
    const resumed = await new Agent({
      model,
      tools: second.tools,
      approver: new ScriptedApprover([], { checks: ["approve"] }),
      runStore: store,
    }).resume(runId);
    expect(resumed.status).toBe("completed");
    expect(first.deletions).toEqual([]);
    expect(second.deletions).toEqual([["cb-1", "cb-2"]]);
    expect((await store.load(runId)).status).toBe("completed");
    expect((await store.list({ status: "suspended" })).runs).toEqual([]);
  });

  it("refuses a run id already in the store", async () => {
    const directory = await makeDirectory();
    const store = new FileRunStore({ directory });
    await store.save(state("nightly"));
    const agent = new Agent({ model: new ScriptedModel([{ text: "hi" }]), runStore: store });
    await expect(agent.run("hello", { runId: "nightly" })).rejects.toThrow(
      'Run id "nightly" is already in the run store (status completed); choose another id',
    );
    const stream = agent.stream("hello", { runId: "nightly" });
    const result = await stream.result;
    expect(result.status).toBe("failed");
    expect(result.error).toBeInstanceOf(ConfigurationError);
    expect((await store.load("nightly")).messages).toEqual(state("nightly").messages);
  });

  it("saves a run under the id it is given", async () => {
    const store = new FileRunStore({ directory: join(await makeDirectory(), "not", "yet") });
    const result = await new Agent({
      model: new ScriptedModel([{ text: "hi" }]),
      runStore: store,
    }).run("hello", { runId: "greeting-1" });
    expect(result.runId).toBe("greeting-1");
    expect(await store.load("greeting-1")).toMatchObject({
      status: "completed",
      stepCount: 1,
      messages: [
        { role: "user", content: "hello" },
        { role: "assistant", content: "hi" },
      ],
    });
  });

  it("lets only one of two processes resume the same run; the other is told who holds it", async () => {
    const directory = await makeDirectory();
    const { runId } = await suspendWithStore(directory);
    let letCheckAnswer: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      letCheckAnswer = resolve;
    });
    const first = callbackTools();
    const firstRun = new Agent({
      model: new ScriptedModel([{ text: "deleted" }]),
      tools: first.tools,
      approver: new ScriptedApprover([], {
        checks: [
          async ({ pending }) => {
            await held;
            return { outcome: "approved", fingerprint: pending.action.fingerprint };
          },
        ],
      }),
      runStore: new FileRunStore({ directory }),
    }).resume(runId);
    await waitForFile(join(directory, "runs", `${runId}.lock`));

    const second = callbackTools();
    const secondRun = new Agent({
      model: new ScriptedModel([{ text: "deleted" }]),
      tools: second.tools,
      approver: new ScriptedApprover([], { checks: ["approve"] }),
      runStore: new FileRunStore({ directory }),
    }).resume(runId);
    await expect(secondRun).rejects.toThrow(
      new RegExp(
        `^Run "${runId}" is being worked on by process ${process.pid} on .+ since .+, whose claim expires at .+ unless renewed \\(lock .+\\.lock\\)\\. Wait for it to finish \\(a stalled or dead holder's claim expires on its own\\); if that process is gone, resume with \\{ takeOver: true \\}\\.$`,
      ),
    );
    letCheckAnswer();
    expect((await firstRun).status).toBe("completed");
    expect(first.deletions).toEqual([["cb-1", "cb-2"]]);
    expect(second.deletions).toEqual([]);
    expect(await readdir(join(directory, "runs"))).toEqual([`${runId}.json`]);
  });

  it("takes over a claim left by a crashed process only when told to", async () => {
    const directory = await makeDirectory();
    const { runId } = await suspendWithStore(directory);
    await writeFile(
      join(directory, "runs", `${runId}.lock`),
      JSON.stringify({
        pid: 999999,
        hostname: "worker-7",
        claimedAt: "2025-05-12T09:30:00Z",
        token: "t",
      }),
    );
    const build = () => {
      const built = callbackTools();
      const agent = new Agent({
        model: new ScriptedModel([{ text: "deleted" }]),
        tools: built.tools,
        approver: new ScriptedApprover([], { checks: ["approve"] }),
        runStore: new FileRunStore({ directory }),
      });
      return { agent, deletions: built.deletions };
    };
    const refused = build();
    await expect(refused.agent.resume(runId)).rejects.toThrow(
      "is being worked on by process 999999 on worker-7 since 2025-05-12T09:30:00Z",
    );
    expect(refused.deletions).toEqual([]);
    const takeOver = build();
    expect((await takeOver.agent.resume(runId, { takeOver: true })).status).toBe("completed");
    expect(takeOver.deletions).toEqual([["cb-1", "cb-2"]]);
    expect(await readdir(join(directory, "runs"))).toEqual([`${runId}.json`]);
  });

  it("refuses a state object of another revision than the one in the store", async () => {
    const directory = await makeDirectory();
    const { runId, state: old } = await suspendWithStore(directory);
    const store = new FileRunStore({ directory });
    const pendingAgain = new Agent({
      model: new ScriptedModel([]),
      tools: callbackTools().tools,
      approver: new ScriptedApprover([], { checks: ["pending"] }),
      runStore: store,
    });
    expect((await pendingAgain.resume(runId)).status).toBe("suspended");
    const { tools, deletions } = callbackTools();
    const stale = new Agent({
      model: new ScriptedModel([{ text: "deleted" }]),
      tools,
      approver: new ScriptedApprover([], { checks: ["approve"] }),
      runStore: store,
    }).resume(old);
    await expect(stale).rejects.toThrow(
      new RegExp(
        `^The run store holds another state of run "${runId}" \\(revision \\d+, status suspended.+ than the one given \\(revision ${old.revision}\\); resume it by id`,
      ),
    );
    await expect(stale).rejects.toMatchObject({ hint: { resumeById: true } });
    expect(deletions).toEqual([]);
  });
});

/** Runs until the approval is pending, with a FileRunStore in `directory`. */
async function suspendWithStore(directory: string): Promise<{ runId: string; state: RunState }> {
  const result = await new Agent({
    model: new ScriptedModel([listAndDelete]),
    tools: callbackTools().tools,
    approver: new ScriptedApprover(["pending"]),
    runStore: new FileRunStore({ directory }),
  }).run("delete cb-1 and cb-2", { suspendOnApproval: true });
  if (result.status !== "suspended" || !result.runId || !result.state) {
    throw new Error(`the run did not suspend: ${result.status} ${result.error?.message}`);
  }
  return { runId: result.runId, state: result.state };
}

async function waitForFile(path: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      await stat(path);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  throw new Error(`${path} never appeared`);
}

describe("FileRunStore's save lock", () => {
  /** Leaves a `.saving` lock as `pid` of this machine would, written `ageMs` ago. */
  async function leaveSaveLock(store: FileRunStore, runId: string, pid: number, ageMs: number) {
    const lock = store.pathOf(runId).replace(/\.json$/, ".saving");
    await writeFile(lock, `${JSON.stringify({ pid, hostname: hostname() })}\n`);
    const at = new Date(Date.now() - ageMs);
    await utimes(lock, at, at);
    return lock;
  }

  /**
   * Saves run-a's revision 2 while `lock` is held: the save is still
   * waiting after 300 ms with the lock in place; once the lock goes, it saves.
   */
  async function expectSaveToWaitFor(store: FileRunStore, lock: string): Promise<void> {
    let settled = false;
    const saving = store
      .save(state("run-a", { revision: 2 }), { expectedRevision: 1 })
      .finally(() => {
        settled = true;
      });
    await sleep(300);
    expect(settled).toBe(false);
    expect(await readFile(lock, "utf8")).toContain(`"pid":`);
    await unlink(lock);
    await saving;
    expect((await store.load("run-a")).revision).toBe(2);
  }

  it("waits for a holder that still runs, however old its lock, so two saves never pass the same revision", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    await store.save(state("run-a"), { expectedRevision: 0 });
    // A process that stalled for a minute holding the lock, still alive.
    const holder = await startLiveProcess();
    onTestFinished(() => holder.stop());
    const lock = await leaveSaveLock(store, "run-a", holder.pid, 60_000);
    await expectSaveToWaitFor(store, lock);
  });

  it("gives up after 20 s on a holder that still runs, naming it and saying what to do", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    await store.save(state("run-a"), { expectedRevision: 0 });
    const holder = await startLiveProcess();
    onTestFinished(() => holder.stop());
    const lock = await leaveSaveLock(store, "run-a", holder.pid, 0);
    const refused = await store
      .save(state("run-a", { revision: 2 }), { expectedRevision: 1 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RunStoreError);
    expect((refused as Error).message).toBe(
      `Could not lock run "run-a" for save (${lock}): it is held by process ${holder.pid} on ${hostname()}, which still runs. Wait for that process to finish; if it is stuck, stop it (its lock is removed once it is gone).`,
    );
  }, 40_000);

  it("waits for a lock another thread of this process holds", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    await store.save(state("run-a"), { expectedRevision: 0 });
    const lock = store.pathOf("run-a").replace(/\.json$/, ".saving");
    const holder = { pid: process.pid, hostname: hostname(), thread: threadId + 1, call: "theirs" };
    await writeFile(lock, `${JSON.stringify(holder)}\n`);
    await expectSaveToWaitFor(store, lock);
  });

  it("removes at once a lock left by an earlier process that had this process's id (a container restarted, its process numbered as before)", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    await store.save(state("run-a"), { expectedRevision: 0 });
    // The worker killed while saving had the id this process has now, on
    // this host name: its lock names a process that runs, but holds nothing.
    await leaveSaveLock(store, "run-a", process.pid, 0);
    await store.save(state("run-a", { revision: 2 }), { expectedRevision: 1 });
    expect((await store.load("run-a")).revision).toBe(2);
  }, 30_000);

  it("removes at once a lock whose holder process is gone", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    await store.save(state("run-a"), { expectedRevision: 0 });
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.once("exit", resolve));
    await leaveSaveLock(store, "run-a", gone.pid ?? 0, 0);
    await store.save(state("run-a", { revision: 2 }), { expectedRevision: 1 });
    expect((await store.load("run-a")).revision).toBe(2);
  });

  it("lets one writer at a time through a lock left by a killed process, however many find it at once: of saves expecting the same revision, one succeeds", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((resolve) => gone.once("exit", resolve));
    // Each round: a run at revision 1 whose save lock a killed process left,
    // and eight writers (arriving a few milliseconds apart, as processes
    // do) each saving revision 2 over revision 1. A writer that removed the
    // lock after another had taken it let two through the same check.
    const saved: number[] = [];
    for (let round = 0; round < 20; round++) {
      const runId = `run-${round}`;
      await store.save(state(runId), { expectedRevision: 0 });
      await leaveSaveLock(store, runId, gone.pid ?? 0, 0);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, async () => {
          await sleep(Math.random() * 3);
          await store.save(state(runId, { revision: 2 }), { expectedRevision: 1 });
        }),
      );
      saved.push(outcomes.filter((outcome) => outcome.status === "fulfilled").length);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") {
          expect(outcome.reason).toBeInstanceOf(RunConflictError);
        }
      }
    }
    expect(saved).toEqual(Array.from({ length: 20 }, () => 1));
  }, 60_000);
});

describe("FileRunStore's sealed runs", () => {
  it("refuses an older sealed copy of a run put back in place of its file", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const seal = `hmac-sha256:${"a".repeat(64)}`;
    await store.save(state("run-a", { seal }), { expectedRevision: 0 });
    const older = await readFile(store.pathOf("run-a"), "utf8");
    await store.save(state("run-a", { revision: 2, status: "aborted", seal }), {
      expectedRevision: 1,
    });
    await writeFile(store.pathOf("run-a"), older);
    await expect(store.load("run-a")).rejects.toThrow(
      /it is revision 1, older than revision 2 this store saved last: an older copy of the run was put back/,
    );
  });
});

describe("FileRunStore's fencing", () => {
  it("refuses a save or a delete under a released claim even when the run's next claim, taken by another process, got the same token (its clock behind this one's)", async () => {
    const directory = await makeDirectory();
    const store = new FileRunStore({ directory });
    await store.save(state("run-a"), { expectedRevision: 0 });
    const released = await store.claim("run-a");
    await released.release();
    // The next claim, as another process writes it: its token from a clock
    // that reads what this one read when it claimed.
    await writeClaimLock(directory, "run-a", {
      owner: "another worker",
      id: "another-claim",
      token: released.token,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    await expect(
      store.save(state("run-a", { revision: 2 }), { expectedRevision: 1, claim: released }),
    ).rejects.toThrow(
      /^Run "run-a" was not saved: this process's claim on it is no longer current \(another worker took it over\)/,
    );
    await expect(store.delete("run-a", { claim: released })).rejects.toThrow(RunConflictError);
    expect((await store.load("run-a")).revision).toBe(1);
  });
});

describe("FileRunStore.claimDue", () => {
  it("passes over a run that another process checked, and set due later, after this one listed it", async () => {
    const directory = await makeDirectory();
    const first = new FileRunStore({ directory });
    const second = new FileRunStore({ directory });
    // A run whose holder died (handed out first), and a run waiting for an
    // answer, due a minute ago (a check, paid for before it is claimed).
    await first.save(state("run-recovered", { status: "running" }));
    await writeClaimLock(directory, "run-recovered", {
      owner: "a worker that died",
      id: "gone",
      token: 1,
      expiresAt: new Date(0),
    });
    await first.save(suspendedRunState("run-waiting"));
    const minuteAgo = new Date(Date.now() - 60_000);
    await (await second.claim("run-waiting")).release({ nextCheckAt: minuteAgo });
    // The budget's lock held here: the claimer lists both runs, takes the
    // first, and waits to pay for the second.
    const budgetLock = join(directory, "check-budget.lock");
    const budgetHolder = await startLiveProcess();
    onTestFinished(() => budgetHolder.stop());
    await writeFile(
      budgetLock,
      `${JSON.stringify({ pid: budgetHolder.pid, hostname: hostname() })}\n`,
    );
    const claiming = first.claimDue({ max: 2, checksPerSecond: 100, owner: "worker-a" });
    await waitForText(join(directory, "runs", "run-recovered.lock"), "worker-a");
    // Meanwhile another worker checks the waiting run: still no answer, next check in an hour.
    const hourLater = new Date(Date.now() + 3_600_000);
    await (await second.claim("run-waiting")).release({ nextCheckAt: hourLater });
    await unlink(budgetLock);
    const claims = await claiming;
    expect(claims.map((claim) => claim.runId)).toEqual(["run-recovered"]);
    expect((await first.schedule("run-waiting"))?.nextCheckAt).toEqual(hourLater);
    // Let go, not held: another claims it at once.
    await (await second.claim("run-waiting")).release({ nextCheckAt: hourLater });
    for (const claim of claims) await claim.release();
  });
});

/** A process of this machine that runs until stopped: a lock's live holder. */
async function startLiveProcess(): Promise<{ pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 60_000)"], {
    stdio: "ignore",
  });
  await new Promise((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    pid: child.pid ?? 0,
    stop: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Writes a run's claim lock file as a claim of another process of this machine would. */
async function writeClaimLock(
  directory: string,
  runId: string,
  claim: { owner: string; id: string; token: number; expiresAt: Date },
): Promise<void> {
  const holder = { pid: process.pid, hostname: hostname(), claimedAt: new Date().toISOString() };
  await writeFile(
    join(directory, "runs", `${runId}.lock`),
    `${JSON.stringify({ ...holder, ...claim, expiresAt: claim.expiresAt.toISOString() })}\n`,
  );
}

/** Waits until the file holds `text` (a claim taken), at most about ten seconds. */
async function waitForText(path: string, text: string): Promise<void> {
  for (let attempt = 0; attempt < 2_000; attempt++) {
    if ((await readFile(path, "utf8").catch(() => "")).includes(text)) return;
    await sleep(5);
  }
  throw new Error(`${path} never held ${text}`);
}
