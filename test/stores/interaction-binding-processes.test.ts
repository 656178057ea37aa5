import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { expect, it } from "vitest";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { useTemporaryDirectories } from "../agent/durable/durable-helpers.js";
import { testDatabaseUrl, usePostgresStores } from "../helpers/postgres-test-database.js";

// Processes binding one interaction of one link to a question each, at
// once, on one store: exactly one question holds it.

const makeDirectory = useTemporaryDirectories();
const makeStore = usePostgresStores("binding");
const tsxLoader = createRequire(import.meta.url).resolve("tsx");

/** What one process printed: the run it bound for, and the store's answer. */
type Outcome = { asked: string; outcome: string; runId?: string };

/** Starts bind-interaction-process.ts for `runId`; resolves once it is ready to bind. */
async function binder(runId: string, environment: Record<string, string>) {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", tsxLoader, new URL("./bind-interaction-process.ts", import.meta.url).pathname],
    {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, ...environment, BIND_RUN: runId },
    },
  );
  let output = "";
  const ready = new Promise<void>((resolve) => {
    child.stdout?.on("data", (chunk) => {
      output += String(chunk);
      if (output.includes("ready\n")) resolve();
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await ready;
  return {
    go: () => child.stdin?.write("go\n"),
    outcome: async (): Promise<Outcome> => {
      expect(await exited).toBe(0);
      const line = output.split("\n").find((text) => text.startsWith("{"));
      return JSON.parse(line ?? "{}") as Outcome;
    },
  };
}

/** Four processes bind at once; resolves with each one's outcome. */
async function race(environment: Record<string, string>): Promise<Outcome[]> {
  const runIds = ["run-a", "run-b", "run-c", "run-d"];
  const binders = await Promise.all(runIds.map((runId) => binder(runId, environment)));
  for (const one of binders) one.go();
  return Promise.all(binders.map((one) => one.outcome()));
}

function expectOneHolder(outcomes: Outcome[]): string {
  const bound = outcomes.filter((outcome) => outcome.outcome === "bound");
  expect(bound).toHaveLength(1);
  const holder = bound[0]!.asked;
  for (const outcome of outcomes) {
    if (outcome.asked !== holder) {
      expect(outcome).toEqual({ asked: outcome.asked, outcome: "taken", runId: holder });
    }
  }
  return holder;
}

it("FileRunStore: of four processes binding one interaction to four questions at once, exactly one holds it, for good", async () => {
  const directory = await makeDirectory();
  const holder = expectOneHolder(await race({ BIND_STORE: "file", BIND_DIRECTORY: directory }));
  const store = new FileRunStore({ directory });
  const binding = { approverLink: "sl_race", interactionId: "i_race" };
  expect(
    await store.bindInteraction({
      ...binding,
      question: `sha256:question-of-${holder}`,
      runId: holder,
    }),
  ).toEqual({ outcome: "bound" });
  expect(
    await store.bindInteraction({ ...binding, question: "sha256:late", runId: "run-late" }),
  ).toEqual({ outcome: "taken", runId: holder });
}, 60_000);

it("PostgresRunStore: of four processes binding one interaction to four questions at once, exactly one holds it, for good", async () => {
  const store = makeStore();
  await store.migrate();
  const holder = expectOneHolder(
    await race({
      BIND_STORE: "postgres",
      BIND_DATABASE_URL: testDatabaseUrl(),
      BIND_SCHEMA: store.schema,
    }),
  );
  expect(
    await store.bindInteraction({
      approverLink: "sl_race",
      interactionId: "i_race",
      question: "sha256:late",
      runId: "run-late",
    }),
  ).toEqual({ outcome: "taken", runId: holder });
}, 60_000);
