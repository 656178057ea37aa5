import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunState } from "../../src/agent/durable/run-state.js";
import { testDatabaseUrl, usePostgresStores } from "../helpers/postgres-test-database.js";
import { suspendedRunState } from "../helpers/run-state-fixtures.js";

const makeStore = usePostgresStores("server_time");
let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
});

afterAll(async () => {
  await admin.end();
});

const hour = 3_600_000;

async function serverNow(): Promise<number> {
  const { rows } = await admin.query<{ now: Date }>("SELECT now() AS now");
  return rows[0]!.now.getTime();
}

/** Runs `body` in a process whose clock is `offsetMs` off (only `Date` is faked). */
async function withClockOff<T>(offsetMs: number, body: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(Date.now() + offsetMs));
  try {
    return await body();
  } finally {
    vi.useRealTimers();
  }
}

function suspendedState(runId: string, at: string): RunState {
  return suspendedRunState(runId, { createdAt: at, updatedAt: at });
}

describe("PostgresRunStore keeps time by the server, and fences by a token no other claim has", () => {
  it("a worker whose clock runs an hour ahead does not hide the run it releases as due now", async () => {
    const store = makeStore();
    await store.save(suspendedState("run-a", new Date().toISOString()));
    const claim = await store.claim("run-a", { owner: "ahead" });
    await withClockOff(hour, () => claim.release({ nextCheckAt: new Date() }));
    const due = await store.claimNext({ owner: "on-time" });
    expect(due?.runId).toBe("run-a");
    await due?.release();
  });

  it("lists the server's time of the last save, whatever the saving worker's clock said", async () => {
    const store = makeStore();
    const before = await serverNow();
    await withClockOff(-2 * hour, () =>
      store.save(suspendedState("run-a", new Date().toISOString())),
    );
    const after = await serverNow();
    const [listed] = (await store.list()).runs;
    const updatedAt = Date.parse(listed?.updatedAt ?? "");
    // The server's clock, to the millisecond: between the two readings around the save.
    expect(updatedAt).toBeGreaterThanOrEqual(before - 1);
    expect(updatedAt).toBeLessThanOrEqual(after + 1);
    expect(Date.parse(listed?.createdAt ?? "")).toBe(updatedAt);
    // Not old enough for "runs prune --older-than 1h", though its state says two hours.
    expect((await store.list({ olderThanMs: hour })).runs).toEqual([]);
  });

  it("hands out fencing tokens no other claim of any run has", async () => {
    const store = makeStore();
    const claims = await Promise.all(
      ["run-a", "run-b", "run-c"].map((runId) => store.claim(runId, { owner: "worker" })),
    );
    const tokens = claims.map((claim) => claim.token);
    expect(new Set(tokens).size).toBe(3);
    for (const claim of claims) await claim.release();
  });
});
