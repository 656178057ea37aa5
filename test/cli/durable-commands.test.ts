import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunReport, RunShowReport, RunsReport } from "switchyard-agents/cli";
import { type Simulators, startSimulators } from "switchyard-agents/simulators";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RunConflictError } from "../../src/agent/durable/durable-errors.js";
import { runCli } from "../../src/cli/run-cli.js";
import { retiredCallbackHost } from "../../src/simulators/orders/seed-callbacks.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { createTestIo } from "./cli-test-io.js";
import { runSwitchyard } from "./spawn-switchyard.js";

let simulators: Simulators;
const directories: string[] = [];

beforeAll(async () => {
  // The services live in this process, outside every command: the question
  // and the callbacks outlive each `switchyard` process, as with `switchyard sim`.
  simulators = await startSimulators({
    reasoner: { scenario: "callback-cleanup" },
    messaging: { answer: "never", deliveryStepMs: 1 },
  });
});

afterAll(async () => {
  await simulators.close();
  await Promise.all(
    directories.map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

beforeEach(() => {
  simulators.orders.reset();
  simulators.messaging.reset();
});

async function stateDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "switchyard-cli-"));
  directories.push(directory);
  return directory;
}

/** The variables `switchyard sim` prints, and where runs are saved. */
function environment(directory: string): Record<string, string> {
  const { reasoner, orders, messaging } = simulators;
  return {
    SWITCHYARD_REASONER_URL: reasoner.url,
    SWITCHYARD_REASONER_API_KEY: reasoner.apiKey,
    SWITCHYARD_ORDERS_URL: orders.url,
    SWITCHYARD_ORDERS_TOKEN: orders.token,
    SWITCHYARD_MESSAGING_URL: messaging.url,
    SWITCHYARD_MESSAGING_TOKEN: messaging.token!,
    SWITCHYARD_APPROVER_LINK: messaging.approverLinkId,
    SWITCHYARD_STATE_DIR: directory,
  };
}

function parseJsonLine<Value>(stdout: string): Value {
  const lines = stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Value;
}

const callbackUrls = (retired: boolean) =>
  simulators.orders
    .callbacks()
    .filter((callback) => callback.url.includes(retiredCallbackHost) === retired)
    .map((callback) => callback.url)
    .sort();
const questionsSent = () => simulators.messaging.messages().length;
const deletionsReceived = () =>
  simulators.orders.requests.filter(
    (request) => request.method === "DELETE" && request.path === "/callbacks",
  );

/** `switchyard <argv>` in this process: quicker than a child for the paths around the main one. */
async function switchyard(argv: string[], env: Record<string, string>) {
  const test = createTestIo({ env });
  const code = await runCli(argv, test.io);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

describe("durable approval waits on the command line, as a user runs them", () => {
  it("run --no-wait suspends, runs lists it, resume waits again, then deletes once after approval", async () => {
    const env = environment(await stateDirectory());
    const kept = callbackUrls(false);
    expect(callbackUrls(true)).toHaveLength(4);

    const started = await runSwitchyard(["run", "callback-cleanup", "--no-wait", "--json"], env);

    expect(started.code).toBe(0);
    const suspended = parseJsonLine<RunReport>(started.stdout);
    expect(suspended).toMatchObject({ example: "callback-cleanup", status: "suspended" });
    const runId = suspended.runId!;
    expect(runId).toMatch(/^run_\d{8}T\d{6}Z_[0-9a-f]{8}$/);
    expect(suspended.approvals).toEqual([
      expect.objectContaining({ tool: "delete_callbacks", outcome: "pending" }),
    ]);
    const interactionId = suspended.approvals[0]!.interactionId!;
    expect(simulators.messaging.interaction(interactionId)?.state).toBe("pending");
    expect(questionsSent()).toBe(1);
    expect(deletionsReceived()).toHaveLength(0);

    const listed = await runSwitchyard(["runs", "--json"], env);

    expect(listed.code).toBe(0);
    expect(parseJsonLine<RunsReport>(listed.stdout)).toMatchObject({
      runs: [
        {
          runId,
          example: "callback-cleanup",
          status: "suspended",
          pendingApprovals: [{ toolName: "delete_callbacks", interactionId }],
        },
      ],
      unreadable: [],
    });

    const stillPending = await runSwitchyard(["resume", runId], env);

    expect(stillPending.code).toBe(3);
    expect(stillPending.stdout).toBe(`${runId}\n`);
    expect(stillPending.stderr).toContain(
      `: the approval of delete_callbacks (interaction ${interactionId}) is not answered yet; nothing was sent again.`,
    );
    expect(stillPending.stderr).toContain(`switchyard resume ${runId}`);
    expect(questionsSent()).toBe(1);
    expect(deletionsReceived()).toHaveLength(0);

    simulators.messaging.answerInteraction(interactionId, "approve");
    const resumed = await runSwitchyard(["resume", runId, "--json"], env);

    expect(resumed.code).toBe(0);
    // One step count: the header's steps so far, plus the step that answers.
    expect(resumed.stderr).toContain(
      `switchyard resume ${runId} (callback-cleanup, 2 steps so far)`,
    );
    expect(resumed.stderr).toMatch(
      /run completed \(3 steps, \d+ tokens in all; 1 tool call, [\d.]+s in this resume\)/,
    );
    const completed = parseJsonLine<RunReport>(resumed.stdout);
    expect(completed).toMatchObject({ status: "completed", runId, example: "callback-cleanup" });
    expect(completed.output).toMatch(/^Deleted 4 callbacks that pointed at/);
    expect(completed.approvals).toEqual([
      expect.objectContaining({ outcome: "approved", interactionId }),
    ]);
    expect(questionsSent()).toBe(1);
    expect(deletionsReceived()).toHaveLength(1);
    expect(callbackUrls(true)).toEqual([]);
    expect(callbackUrls(false)).toEqual(kept);

    const again = await switchyard(["resume", runId], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      new RegExp(`^switchyard: Run "${runId}" already ended with status completed .*\\n$`),
    );
    expect(deletionsReceived()).toHaveLength(1);

    const shown = await switchyard(["runs", "show", runId, "--json"], env);
    expect(shown.code).toBe(0);
    const report = parseJsonLine<RunShowReport>(shown.stdout);
    expect(report).toMatchObject({
      runId,
      example: "callback-cleanup",
      status: "completed",
      answer: completed.output,
      error: null,
    });
    const deletion = report.toolCalls.find((call) => call.toolName === "delete_callbacks");
    expect(deletion).toMatchObject({ status: "succeeded", stepNumber: 2 });
    expect(deletion?.result).toContain("deleted");
    expect(report.approvals).toEqual([
      {
        toolCallId: deletion?.toolCallId,
        toolName: "delete_callbacks",
        outcome: "approved",
        arguments: deletion?.arguments,
        fingerprint: completed.approvals[0]!.fingerprint,
        interactionId,
        approvedBy: `subscription link ${simulators.messaging.approverLinkId}`,
        code: null,
        rule: null,
        decidedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    const text = await switchyard(["runs", "show", runId], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`answer:    "${completed.output}"`);
    expect(text.stdout).toMatch(
      /step 2 {2}delete_callbacks \{"callback_ids":\[.*\]\} {2}succeeded/,
    );
    expect(text.stdout).toContain(
      `: approved by "subscription link ${simulators.messaging.approverLinkId}" at `,
    );
    expect(text.stdout).toContain(
      `fingerprint ${completed.approvals[0]!.fingerprint}, interaction ${interactionId}`,
    );
  });

  it("with SWITCHYARD_STATE_KEY, resume refuses a saved run edited by hand", async () => {
    const directory = await stateDirectory();
    const env = {
      ...environment(directory),
      SWITCHYARD_STATE_KEY: "cli-state-key-0123456789abcdef0123456789",
    };
    const started = await switchyard(["run", "callback-cleanup", "--no-wait", "--json"], env);
    expect(started.code).toBe(0);
    const { runId, approvals } = parseJsonLine<RunReport>(started.stdout);
    const file = join(directory, "runs", `${runId!}.json`);
    const saved = JSON.parse(await readFile(file, "utf8")) as { seal?: string; maxSteps: number };
    expect(saved.seal).toMatch(/^hmac-sha256:/);
    expect(started.stdout + started.stderr).not.toContain(env.SWITCHYARD_STATE_KEY);
    await writeFile(file, JSON.stringify({ ...saved, maxSteps: saved.maxSteps + 50 }));
    simulators.messaging.answerInteraction(approvals[0]!.interactionId!, "approve");

    const resumed = await switchyard(["resume", runId!], env);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain("its seal does not match its content");
    expect(deletionsReceived()).toHaveLength(0);
  });

  it("resume after a denial deletes nothing and reports the refusal", async () => {
    const env = environment(await stateDirectory());
    const before = simulators.orders.callbacks();

    const started = await switchyard(["run", "callback-cleanup", "--no-wait"], env);
    expect(started.code).toBe(0);
    const runId = started.stdout.trim();
    expect(started.stderr).toMatch(
      /run suspended .*: waiting for the approval of delete_callbacks/,
    );
    const [interaction] = simulators.messaging.interactions();
    simulators.messaging.answerInteraction(interaction!.interaction_id, "deny");

    const resumed = await switchyard(["resume", runId, "--json"], env);

    expect(resumed.code).toBe(0);
    const report = parseJsonLine<RunReport>(resumed.stdout);
    expect(report.status).toBe("completed");
    expect(report.approvals).toEqual([
      expect.objectContaining({ outcome: "refused", code: "denied" }),
    ]);
    expect(report.output).toMatch(/^Nothing was deleted: .* was refused/);
    expect(deletionsReceived()).toHaveLength(0);
    expect(simulators.orders.callbacks()).toEqual(before);
    expect(questionsSent()).toBe(1);
  });

  it("resume refuses another messaging service than the one the question went through", async () => {
    const env = environment(await stateDirectory());
    const started = await switchyard(["run", "callback-cleanup", "--no-wait"], env);
    const runId = started.stdout.trim();
    const elsewhere = "http://127.0.0.1:9/";

    const resumed = await switchyard(["resume", runId], {
      ...env,
      SWITCHYARD_MESSAGING_URL: elsewhere,
    });

    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toBe(
      `switchyard: Run "${runId}" asked for approval through the messaging service at ${simulators.messaging.url}/, but SWITCHYARD_MESSAGING_URL is now ${elsewhere}: its answer is only there. Point SWITCHYARD_MESSAGING_URL (with its token and SWITCHYARD_APPROVER_LINK) back at that service; a restarted switchyard sim has forgotten the question, so start a new run instead.\n`,
    );
  });

  it("resume --take-over goes on with a run left running by a process that is gone", async () => {
    const directory = await stateDirectory();
    const env = environment(directory);
    const started = await switchyard(["run", "callback-cleanup", "--no-wait"], env);
    const runId = started.stdout.trim();
    const file = join(directory, "runs", `${runId}.json`);
    const state = JSON.parse(await readFile(file, "utf8")) as { status: string };
    await writeFile(file, JSON.stringify({ ...state, status: "running" }));
    simulators.messaging.answerInteraction(
      simulators.messaging.interactions()[0]!.interaction_id,
      "approve",
    );

    const refused = await switchyard(["resume", runId], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^switchyard: Run "${runId}" is marked running .* run switchyard resume ${runId} --take-over; .*\\n$`,
      ),
    );
    expect(deletionsReceived()).toHaveLength(0);

    const resumed = await switchyard(["resume", runId, "--take-over"], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/^Deleted 4 callbacks/);
    expect(deletionsReceived()).toHaveLength(1);
  });

  it("an unknown run id is one line and exit status 2", async () => {
    const directory = await stateDirectory();

    const { code, stdout, stderr } = await switchyard(
      ["resume", "run_20250512T093000Z_1a2b3c4d"],
      environment(directory),
    );

    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `switchyard: No run "run_20250512T093000Z_1a2b3c4d" in ${directory} (SWITCHYARD_STATE_DIR); switchyard runs lists the saved runs.\n`,
    );
  });

  it("a corrupted saved run is one line and exit status 2, and runs names the file", async () => {
    const directory = await stateDirectory();
    const env = environment(directory);
    const started = await switchyard(["run", "callback-cleanup", "--no-wait"], env);
    const runId = started.stdout.trim();
    const file = join(directory, "runs", `${runId}.json`);
    await writeFile(file, '{"format": "switchyard.run-state", "version": 1, "runId": ');

    const resumed = await switchyard(["resume", runId], env);

    expect(resumed.code).toBe(2);
    expect(resumed.stdout).toBe("");
    expect(resumed.stderr).toMatch(
      new RegExp(
        `^switchyard: Run "${runId}" cannot be resumed: its saved state ${file} is unreadable \\([^\\n]+\\); restore the file, or delete it to drop the run\\.\\n$`,
      ),
    );
    expect(deletionsReceived()).toHaveLength(0);

    const listed = await switchyard(["runs", "--json"], env);
    expect(listed.code).toBe(0);
    expect(parseJsonLine<RunsReport>(listed.stdout)).toMatchObject({
      runs: [],
      unreadable: [{ file }],
    });
    expect(listed.stderr).toContain(`warning: ${file} cannot be read: `);
  });

  it("refuses --no-wait with simulators started inside the command, saving nothing", async () => {
    const directory = await stateDirectory();

    const { code, stdout, stderr } = await switchyard(["run", "callback-cleanup", "--no-wait"], {
      SWITCHYARD_STATE_DIR: directory,
    });

    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "switchyard: switchyard run --no-wait needs the orders and messaging services of callback-cleanup to run outside this command: a simulator started here stops when the command exits, and the approval question and the data the run acts on would go with it. Start the simulators with switchyard sim in another shell and export the lines it prints (SWITCHYARD_ORDERS_URL, SWITCHYARD_MESSAGING_URL, ...), or set your own services' variables.\n",
    );
    expect(await readdir(directory)).toEqual([]);
  });

  it("refuses --no-wait for an example whose agent never asks, leaving no record", async () => {
    const directory = await stateDirectory();

    const { code, stdout, stderr } = await switchyard(
      ["run", "order-report", "--no-wait"],
      environment(directory),
    );

    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.split("\n").filter((line) => line.startsWith("switchyard: "))).toEqual([
      expect.stringMatching(
        /^switchyard: --no-wait does not apply to order-report: its agent cannot stop at an approval and read the answer later \(.*approver.*\)\. Run it without --no-wait\.$/,
      ),
    ]);
    expect(await readdir(join(directory, "cli"))).toEqual([]);
  });

  it("run --no-wait prints only the run id on stdout when no approval was needed too; the answer stays on stderr and in runs show", async () => {
    const env = environment(await stateDirectory());
    const task = "Remove every callback that points at hooks.never-used.example.";

    const started = await switchyard(["run", "callback-cleanup", "--no-wait", "--task", task], env);

    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/^run_\d{8}T\d{6}Z_[0-9a-f]{8}\n$/);
    const runId = started.stdout.trim();
    expect(started.stderr).toContain(
      `The run completed without stopping at an approval; its answer and steps are above, and switchyard runs show ${runId} prints them again.`,
    );
    const shown = parseJsonLine<RunShowReport>(
      (await switchyard(["runs", "show", runId, "--json"], env)).stdout,
    );
    expect(shown).toMatchObject({ runId, status: "completed", approvals: [] });
    expect(shown.answer).toContain("hooks.never-used.example");
    // The answer was shown as it streamed, on stderr.
    expect(started.stderr).toContain(shown.answer!.slice(0, 40));
    expect(questionsSent()).toBe(0);
  });

  it("runs prints a table of the saved runs, filtered by status", async () => {
    const env = environment(await stateDirectory());
    const started = await switchyard(["run", "callback-cleanup", "--no-wait"], env);
    const runId = started.stdout.trim();

    const all = await switchyard(["runs"], env);
    const completed = await switchyard(["runs", "--status", "completed,failed"], env);

    expect(all.code).toBe(0);
    const [header, row, ...rest] = all.stdout.split("\n");
    expect(header).toMatch(/^RUN ID +EXAMPLE +STATUS +UPDATED +PENDING APPROVALS$/);
    expect(row).toMatch(
      new RegExp(
        `^${runId} +callback-cleanup +suspended +\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ +delete_callbacks \\(\\S+\\)$`,
      ),
    );
    expect(rest).toEqual([""]);
    expect(completed.stdout).toBe("");
    expect(completed.stderr).toContain("No runs with status completed or failed in ");
  });
});

describe("orphaned runs: runs cancel and runs prune", () => {
  it("cancel withdraws the question and ends the run, resume refuses it, prune removes it once old", async () => {
    const directory = await stateDirectory();
    const env = environment(directory);
    const started = await switchyard(["run", "callback-cleanup", "--no-wait"], env);
    expect(started.code).toBe(0);
    const runId = started.stdout.trim();
    const [interaction] = simulators.messaging.interactions();
    const interactionId = interaction!.interaction_id;

    const woken = await switchyard(["runs", "wake", runId], env);
    expect(woken).toMatchObject({ code: 0, stdout: `${runId}\n` });
    expect(woken.stderr).toContain(`Run "${runId}" is due now`);

    const beforeCancel = await new FileRunStore({ directory }).load(runId);
    const cancelled = await switchyard(["runs", "cancel", runId], env);

    expect(cancelled).toMatchObject({ code: 0, stdout: `${runId}\n` });
    expect(cancelled.stderr).toContain(
      `withdrew the question about delete_callbacks (interaction ${interactionId}).`,
    );
    expect(simulators.messaging.interaction(interactionId)?.state).toBe("canceled");
    const listed = parseJsonLine<RunsReport>((await switchyard(["runs", "--json"], env)).stdout);
    // The question was withdrawn: the run waits for nothing.
    expect(listed.runs).toEqual([
      expect.objectContaining({ runId, status: "aborted", pendingApprovals: [] }),
    ]);
    const shown = parseJsonLine<RunShowReport>(
      (await switchyard(["runs", "show", runId, "--json"], env)).stdout,
    );
    expect(shown.error).toMatchObject({ name: "RunCancelled" });
    expect(shown.approvals).toEqual([
      expect.objectContaining({
        toolName: "delete_callbacks",
        outcome: "withdrawn",
        interactionId,
      }),
    ]);
    // A process that read the run before the cancel cannot save over it (un-cancelling it).
    await expect(
      new FileRunStore({ directory }).save(
        { ...beforeCancel, revision: beforeCancel.revision + 1 },
        { expectedRevision: beforeCancel.revision },
      ),
    ).rejects.toBeInstanceOf(RunConflictError);
    const resumed = await switchyard(["resume", runId], env);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain("already ended with status aborted");
    const again = await switchyard(["runs", "cancel", runId], env);
    expect(again.code).toBe(2);
    const notWoken = await switchyard(["runs", "wake", runId], env);
    expect(notWoken.code).toBe(2);
    expect(notWoken.stderr).toContain("is aborted, not suspended: there is nothing to wake");
    expect(deletionsReceived()).toHaveLength(0);

    const young = await switchyard(["runs", "prune", "--older-than", "1h"], env);
    expect(young).toMatchObject({ code: 0, stdout: "" });
    expect(young.stderr).toContain("Removed 0 runs last updated more than 1h ago");
    // A state that says it is old is not: the store's own time of the save decides.
    const store = new FileRunStore({ directory });
    const state = await store.load(runId);
    await store.save(
      { ...state, updatedAt: new Date(Date.now() - 8 * 86_400_000).toISOString() },
      { expectedRevision: state.revision },
    );
    const fresh = await switchyard(["runs", "prune", "--older-than", "7d"], env);
    expect(fresh).toMatchObject({ code: 0, stdout: "" });
    // Age the run's file as if a week had passed.
    const weekAgo = new Date(Date.now() - 8 * 86_400_000);
    await utimes(store.pathOf(runId), weekAgo, weekAgo);
    const pruned = await switchyard(["runs", "prune", "--older-than", "7d"], env);
    expect(pruned).toMatchObject({ code: 0, stdout: `${runId}\n` });
    expect(pruned.stderr).toContain("Removed 1 run last updated more than 7d ago");
    expect(
      parseJsonLine<RunsReport>((await switchyard(["runs", "--json"], env)).stdout).runs,
    ).toEqual([]);
    expect(await readdir(join(directory, "cli"))).toEqual([]);
  });

  it("prune withdraws a suspended run's open question, as cancel does, before removing the run", async () => {
    const directory = await stateDirectory();
    const env = environment(directory);
    const started = await switchyard(["run", "callback-cleanup", "--no-wait"], env);
    expect(started.code).toBe(0);
    const runId = started.stdout.trim();
    const [interaction] = simulators.messaging.interactions();
    const interactionId = interaction!.interaction_id;
    expect(simulators.messaging.interaction(interactionId)?.state).toBe("pending");
    const store = new FileRunStore({ directory });
    const weekAgo = new Date(Date.now() - 8 * 86_400_000);
    await utimes(store.pathOf(runId), weekAgo, weekAgo);

    const pruned = await switchyard(["runs", "prune", "--older-than", "7d"], env);

    expect(pruned).toMatchObject({ code: 0, stdout: `${runId}\n` });
    expect(pruned.stderr).toContain(
      `withdrew the question about delete_callbacks (interaction ${interactionId}).`,
    );
    expect(pruned.stderr).toContain("Removed 1 run last updated more than 7d ago");
    expect(simulators.messaging.interaction(interactionId)?.state).toBe("canceled");
    expect(
      parseJsonLine<RunsReport>((await switchyard(["runs", "--json"], env)).stdout).runs,
    ).toEqual([]);
    expect(deletionsReceived()).toHaveLength(0);
  });

  it("runs says when none of the runs is suspended, and nothing about resuming", async () => {
    const env = environment(await stateDirectory());
    const started = await switchyard(["run", "callback-cleanup", "--no-wait"], env);
    const runId = started.stdout.trim();
    const waiting = await switchyard(["runs"], env);
    expect(waiting.stderr).toContain("Resume a suspended run with: switchyard resume <run-id>");
    await switchyard(["runs", "cancel", runId], env);

    const listed = await switchyard(["runs"], env);

    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${runId} +callback-cleanup +aborted `, "m"));
    expect(listed.stderr).toBe("None of them is suspended: no run waits for an answer.\n");
    const aborted = await switchyard(["runs", "--status", "aborted"], env);
    expect(aborted.stderr).toBe("");
  });

  it("runs and runs cancel print a hostile service's interaction id escaped", async () => {
    const directory = await stateDirectory();
    const env = environment(directory);
    const started = await switchyard(["run", "callback-cleanup", "--no-wait"], env);
    const runId = started.stdout.trim();
    // What a hostile messaging service could have answered as the interaction's id.
    const hostileId = "i-1\x1b]0;owned\x07\x1b[2J\u202e";
    const escapedId = "i-1\\x1b]0;owned\\x07\\x1b[2J\\u202e";
    const file = join(directory, "runs", `${runId}.json`);
    const state = JSON.parse(await readFile(file, "utf8")) as {
      pendingCalls: Array<{ interactionId?: string }>;
    };
    for (const call of state.pendingCalls) call.interactionId = hostileId;
    await writeFile(file, JSON.stringify(state));

    const listed = await switchyard(["runs"], env);
    const cancelled = await switchyard(["runs", "cancel", runId], env);

    expect(listed.stdout).toContain(`delete_callbacks (${escapedId})`);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stderr).toContain(`interaction ${escapedId}`);
    for (const output of [listed.stdout, listed.stderr, cancelled.stdout, cancelled.stderr]) {
      expect(output.replaceAll("\n", "")).not.toMatch(/[\p{Cc}\u202e]/u);
    }
  });

  it("says how to write the age, and which command a flag belongs to", async () => {
    const env = environment(await stateDirectory());
    const bad = await switchyard(["runs", "prune", "--older-than", "a week"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'switchyard: switchyard runs prune --older-than needs a duration above zero, such as 500ms, 30s, 5m, 12h, 7d or 2w; got "a week".\n',
    );
    const misplaced = await switchyard(["runs", "--older-than", "7d"], env);
    expect(misplaced).toMatchObject({
      code: 2,
      stderr: "switchyard: --older-than belongs to switchyard runs prune.\n",
    });
  });
});
