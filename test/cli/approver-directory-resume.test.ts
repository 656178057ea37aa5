import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import type { RunShowReport } from "switchyard-agents/cli";
import { type Simulators, startSimulators } from "switchyard-agents/simulators";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.js";
import { MessagingClient } from "../../src/clients/messaging/messaging-client.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";
import { createTestIo } from "./cli-test-io.js";
import { simulatorVariables } from "./simulator-variables.js";
import { finished, spawnScript } from "./spawn-switchyard.js";

/**
 * A run started with `switchyard run --no-wait` asks on the messaging
 * service; `switchyard resume` and `switchyard worker` read the answer and
 * judge it against the approver directory they are given. callback-cleanup's
 * rule names no roles, and the command line sets none: the directory's
 * default decides, anyone it names but the person who started the run.
 */

/** The user these tests run as: who starts a run unless --started-by says otherwise. */
const localUser = userInfo().username;
const folder = mkdtempSync(join(tmpdir(), "switchyard-approvers-resume-"));
const schemas: string[] = [];

afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

/** A directory file holding these people. */
function directoryFile(name: string, people: unknown[]): string {
  const path = join(folder, `${name}.json`);
  writeFileSync(path, JSON.stringify({ people }));
  return path;
}

/** The local user, in the directory by their terminal name. */
const me = { id: "me", name: "Me Here", roles: ["oncall"], identities: { terminal: [localUser] } };
/** Someone on call who is not on messaging. */
const bob = { id: "bob", name: "Bob Roy", roles: ["oncall"], identities: { terminal: ["bob"] } };

/** Alice, on call, reached on these messaging links. */
function alice(links: string[]) {
  return { id: "alice", name: "Alice Ng", roles: ["oncall"], identities: { messaging: links } };
}

/** Alice as the records name her when she answered on `link`. */
function aliceOn(link: string) {
  return { id: "alice", name: "Alice Ng", channel: "messaging", evidence: link };
}

/** Fresh services and a schema of their own: each case deletes the callbacks its run is about. */
interface Setting {
  services: Simulators;
  env: Record<string, string>;
}

async function withSetting(work: (setting: Setting) => Promise<void>): Promise<void> {
  const services = await startSimulators({
    reasoner: { scenario: "callback-cleanup" },
    messaging: { answer: "never", deliveryStepMs: 1 },
  });
  const schema = uniqueSchema("cli_directory");
  schemas.push(schema);
  try {
    await work({
      services,
      env: {
        ...simulatorVariables(services),
        SWITCHYARD_DATABASE_URL: testDatabaseUrl(),
        SWITCHYARD_DATABASE_SCHEMA: schema,
      },
    });
  } finally {
    await services.close();
  }
}

/** A new subscription link on the simulator, its subscriber having accepted it. */
async function activeLink(services: Simulators, label: string): Promise<string> {
  const { messaging } = services;
  const client = new MessagingClient({ baseUrl: messaging.url, token: messaging.token });
  const link = await client.createSubscriptionLink({ label });
  messaging.activateLink(link.subscriptionLinkId);
  return link.subscriptionLinkId;
}

async function switchyard(argv: string[], env: Record<string, string>) {
  const test = createTestIo({ env });
  const code = await runCli(argv, test.io);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

/** `run callback-cleanup --no-wait` with these flags: the run's id, once its question is out. */
async function startRun(setting: Setting, flags: string[]): Promise<string> {
  const started = await switchyard(["run", "callback-cleanup", "--no-wait", ...flags], setting.env);
  expect(started.code, started.stderr).toBe(0);
  return started.stdout.trim();
}

async function shown(setting: Setting, runId: string): Promise<RunShowReport> {
  const report = await switchyard(["runs", "show", runId, "--json"], setting.env);
  expect(report.code, report.stderr).toBe(0);
  return JSON.parse(report.stdout) as RunShowReport;
}

/** Approves the run's one question on the link it was sent to, which must be `link`. */
async function approveOn(setting: Setting, runId: string, link: string): Promise<void> {
  const interactionId = (await shown(setting, runId)).approvals[0]?.interactionId ?? "";
  const interaction = setting.services.messaging.interaction(interactionId);
  expect(interaction?.state).toBe("pending");
  expect(interaction?.subscription_link_id).toBe(link);
  setting.services.messaging.answerInteraction(interactionId, "approve");
}

/**
 * A run started for Alice (--started-by), whom the directory gives
 * SWITCHYARD_APPROVER_LINK: nobody else is on messaging, so her link is
 * asked, and she approves. Its id, the directory file, her link.
 */
async function selfApprovedRun(setting: Setting, name: string) {
  const { approverLinkId } = setting.services.messaging;
  const team = directoryFile(name, [me, alice([approverLinkId])]);
  const runId = await startRun(setting, ["--approver-directory", team, "--started-by", "alice"]);
  await approveOn(setting, runId, approverLinkId);
  return { runId, team, approverLinkId };
}

/** A run's approvals when Alice, who started it, approved on `link`: refused, naming her. */
function selfApprovalOn(link: string) {
  return [
    expect.objectContaining({ outcome: "refused", code: "self_approval", people: [aliceOn(link)] }),
  ];
}

/** `switchyard resume <runId>` with these flags (and variables), which must end the run. */
async function resume(
  setting: Setting,
  runId: string,
  flags: string[],
  variables: Record<string, string> = {},
): Promise<void> {
  const resumed = await switchyard(["resume", runId, ...flags], { ...setting.env, ...variables });
  expect(resumed.code, resumed.stderr).toBe(0);
}

function deletions(setting: Setting) {
  return setting.services.orders.requests.filter(
    (request) => request.method === "DELETE" && request.path === "/callbacks",
  );
}

describe("switchyard resume --approver-directory: an answer given on messaging is judged by the directory", () => {
  it("runs the deletion once, naming the person, when a person the directory allows approved on their own link", async () => {
    await withSetting(async (setting) => {
      const aliceLink = await activeLink(setting.services, "Alice Ng");
      const team = directoryFile("team-allowed", [me, alice([aliceLink])]);
      const runId = await startRun(setting, ["--approver-directory", team]);
      // The directory routes the question to Alice, not to SWITCHYARD_APPROVER_LINK.
      await approveOn(setting, runId, aliceLink);

      await resume(setting, runId, ["--approver-directory", team]);

      expect(deletions(setting)).toHaveLength(1);
      const report = await shown(setting, runId);
      expect(report.status).toBe("completed");
      expect(report.approvals).toEqual([
        expect.objectContaining({
          toolName: "delete_callbacks",
          outcome: "approved",
          people: [aliceOn(aliceLink)],
        }),
      ]);
      const text = await switchyard(["runs", "show", runId], setting.env);
      expect(text.stdout).toContain("Alice Ng");
    });
  }, 120_000);

  it("refuses an answer from a link the directory does not know (approver_not_allowed): nothing is deleted", async () => {
    await withSetting(async (setting) => {
      // Nobody the directory allows is on messaging: the question goes to SWITCHYARD_APPROVER_LINK, whose subscriber it does not name.
      const strangers = directoryFile("strangers", [me, bob]);
      const runId = await startRun(setting, ["--approver-directory", strangers]);
      await approveOn(setting, runId, setting.services.messaging.approverLinkId);

      await resume(setting, runId, ["--approver-directory", strangers]);

      expect(deletions(setting)).toHaveLength(0);
      const report = await shown(setting, runId);
      expect(report.status).toBe("completed");
      expect(report.approvals).toEqual([
        expect.objectContaining({ outcome: "refused", code: "approver_not_allowed" }),
      ]);
      expect(report.approvals[0]?.people ?? []).toEqual([]);
    });
  }, 120_000);

  it("judges by the directory resume is given: an approval from a person it does not name is refused", async () => {
    await withSetting(async (setting) => {
      const aliceLink = await activeLink(setting.services, "Alice Ng");
      const then = directoryFile("with-alice", [me, alice([aliceLink])]);
      const now = directoryFile("without-alice", [me, bob]);
      const runId = await startRun(setting, ["--approver-directory", then]);
      await approveOn(setting, runId, aliceLink);

      // The file given by the variable, as a deployment would set it.
      await resume(setting, runId, [], { SWITCHYARD_APPROVER_DIRECTORY: now });

      expect(deletions(setting)).toHaveLength(0);
      expect((await shown(setting, runId)).approvals).toEqual([
        expect.objectContaining({ outcome: "refused", code: "approver_not_allowed" }),
      ]);
    });
  }, 120_000);

  it("refuses the approval of the person who started the run (--started-by) as self_approval: nothing is deleted", async () => {
    await withSetting(async (setting) => {
      const { runId, team, approverLinkId } = await selfApprovedRun(setting, "team-self");
      expect((await shown(setting, runId)).startedBy).toBe("alice");

      await resume(setting, runId, ["--approver-directory", team]);

      expect(deletions(setting)).toHaveLength(0);
      expect((await shown(setting, runId)).approvals).toEqual(selfApprovalOn(approverLinkId));
    });
  }, 120_000);
});

describe("switchyard worker --approver-directory: the worker judges the answers of the runs it settles", () => {
  it("runs the deletion a person the directory allows approved, once, and refuses the one approved by the person it was started for", async () => {
    await withSetting(async (setting) => {
      // Alice answers on a link of her own and on SWITCHYARD_APPROVER_LINK.
      const aliceLink = await activeLink(setting.services, "Alice Ng");
      const { approverLinkId } = setting.services.messaging;
      const team = directoryFile("team-worker", [me, alice([aliceLink, approverLinkId])]);
      // Started by the local user: asked of Alice, on her first active link.
      const allowed = await startRun(setting, ["--approver-directory", team]);
      // Started for Alice: nobody else is on messaging, so SWITCHYARD_APPROVER_LINK, hers, is asked.
      const own = await startRun(setting, ["--approver-directory", team, "--started-by", "alice"]);
      await approveOn(setting, allowed, aliceLink);
      await approveOn(setting, own, approverLinkId);

      const worker = spawnScript(
        "src/cli/main.ts",
        ["worker", "--approver-directory", team, "--poll-interval", "20ms"],
        setting.env,
      );
      const done = finished(worker);
      try {
        await new Promise<void>((resolve) => {
          const waiting = new Set([`${allowed} completed`, `${own} completed`]);
          createInterface({ input: worker.stdout! }).on("line", (line) => {
            waiting.delete(line);
            if (waiting.size === 0) resolve();
          });
        });
      } finally {
        worker.kill("SIGTERM");
      }
      const { code, stderr } = await done;
      expect(code, stderr).toBe(0);

      expect(deletions(setting)).toHaveLength(1);
      expect((await shown(setting, allowed)).approvals).toEqual([
        expect.objectContaining({ outcome: "approved", people: [aliceOn(aliceLink)] }),
      ]);
      expect((await shown(setting, own)).approvals).toEqual(selfApprovalOn(approverLinkId));
    });
  }, 120_000);
});

describe("a run started with an approver directory is not settled without one", () => {
  it("switchyard resume without a directory refuses the run, exit 2, naming the flag: nothing is deleted, the run waits", async () => {
    await withSetting(async (setting) => {
      const { runId } = await selfApprovedRun(setting, "team-forgotten");

      const resumed = await switchyard(["resume", runId], setting.env);

      expect(resumed.code).toBe(2);
      expect(resumed.stderr).toContain(
        `Run "${runId}" was started with an approver directory (started by "alice")`,
      );
      expect(resumed.stderr).toContain("--approver-directory FILE");
      expect(deletions(setting)).toHaveLength(0);
      expect((await shown(setting, runId)).status).toBe("suspended");
    });
  }, 120_000);

  it("switchyard worker without a directory does not resume it: it says why at each attempt, and nothing is deleted", async () => {
    await withSetting(async (setting) => {
      const { runId } = await selfApprovedRun(setting, "team-worker-forgotten");

      const worker = spawnScript(
        "src/cli/main.ts",
        [
          "worker",
          "--max-attempts",
          "2",
          "--first-recheck-after",
          "10ms",
          "--poll-interval",
          "20ms",
        ],
        setting.env,
      );
      const done = finished(worker);
      try {
        await new Promise<void>((resolve) => {
          createInterface({ input: worker.stdout! }).on("line", (line) => {
            // Its end either way: given up on, or (were the answer taken) completed.
            if (line.startsWith(`${runId} failed`) || line === `${runId} completed`) resolve();
          });
        });
      } finally {
        worker.kill("SIGTERM");
      }
      const { code, stdout } = await done;
      expect(code).toBe(0);
      expect(stdout).toMatch(
        new RegExp(
          `${runId} not resumed: .*was started with an approver directory \\(started by "alice"\\).*--approver-directory FILE`,
        ),
      );
      expect(deletions(setting)).toHaveLength(0);
      expect((await shown(setting, runId)).status).toBe("failed");
    });
  }, 120_000);
});
