import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { Agent, orderTools } from "switchyard-agents";
import { type ExampleDefinition, type RunReport, runExample } from "switchyard-agents/cli";
import { afterAll, describe, expect, it } from "vitest";
import { callbackCleanup } from "../../examples/callback-cleanup.js";
import { parseCommandLine } from "../../src/cli/parse-arguments.js";
import { runCli } from "../../src/cli/run-cli.js";
import { createTestIo, type TestIo } from "./cli-test-io.js";

/** The user these tests run as: the person at "the terminal". */
const localUser = userInfo().username;
const folder = mkdtempSync(join(tmpdir(), "switchyard-approvers-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A directory file holding these people. */
function directoryFile(name: string, people: unknown[]): string {
  const path = join(folder, `${name}.json`);
  writeFileSync(path, JSON.stringify({ people }));
  return path;
}

/** The local user, on call; Bob, a lead reached elsewhere; Sam in sales. */
const team = directoryFile("team", [
  { id: "me", name: "Me Here", roles: ["oncall"], identities: { terminal: [localUser] } },
  { id: "bob", name: "Bob Roy", roles: ["oncall", "lead"], identities: { messaging: ["sl_bob"] } },
  { id: "sam", name: "Sam Roe", roles: ["sales"], identities: { terminal: ["sam"] } },
]);

/** A terminal whose stdout is a pipe (for the --json report), answering each prompt with `line`. */
function terminalAnswering(line: string, env: Record<string, string> = {}): TestIo {
  const test = createTestIo({ terminal: true, env });
  Object.assign(test.io.stdout, { isTTY: false });
  let answered = 0;
  test.io.stderr.on("data", () => {
    const prompts = test.stderr().split("Your choice").length - 1;
    while (answered < prompts) {
      answered += 1;
      test.type(line);
    }
  });
  return test;
}

function reportOf(test: TestIo): RunReport {
  return JSON.parse(test.stdout().trim()) as RunReport;
}

/** The deletion's approval and whether the deletion ran. */
function deletion(report: RunReport) {
  const call = report.toolCalls.find((candidate) => candidate.name === "delete_callbacks");
  const approval = report.approvals.find((candidate) => candidate.tool === "delete_callbacks");
  return { ran: call?.status === "succeeded", approval };
}

/** callback-cleanup with a rule of its own about who may approve its deletions. */
function cleanupWithRule(rule: {
  roles?: string[];
  allowSelfApproval?: boolean;
}): ExampleDefinition {
  return {
    ...callbackCleanup,
    createAgent: (services) =>
      new Agent({
        model: services.model,
        tools: orderTools(services.orders).filter((tool) =>
          ["list_callbacks", "delete_callbacks"].includes(tool.name),
        ),
        instructions: callbackCleanup.instructions,
        maxSteps: 20,
        approver: services.approver,
        approverDirectory: services.approverDirectory,
        approvalPolicy: {
          rules: [{ name: "deletions", tool: "delete_callbacks", decision: "ask", ...rule }],
        },
        logger: services.logger,
      }),
  };
}

describe("switchyard run --approver-directory: the local user starts the run and answers at the terminal", () => {
  it("refuses the local user's approval of their own run (self_approval): nothing is deleted", async () => {
    const test = terminalAnswering("1");

    const exitCode = await runCli(
      ["run", "callback-cleanup", "--approve", "ask", "--approver-directory", team, "--json"],
      test.io,
    );

    expect(exitCode).toBe(0);
    const { ran, approval } = deletion(reportOf(test));
    expect(ran).toBe(false);
    expect(approval).toMatchObject({ outcome: "refused", code: "self_approval" });
    expect(approval?.people).toEqual([
      { id: "me", name: "Me Here", channel: "terminal", evidence: localUser },
    ]);
  });

  it("lets the local user approve a run started on someone else's behalf (--started-by): it runs, and names them", async () => {
    const test = terminalAnswering("1");

    const exitCode = await runCli(
      [
        "run",
        "callback-cleanup",
        "--approve",
        "ask",
        "--approver-directory",
        team,
        "--started-by",
        "bob",
        "--json",
      ],
      test.io,
    );

    expect(exitCode).toBe(0);
    expect(test.stderr()).toContain(
      "counted only from people the approver directory allows, the run started by bob",
    );
    const { ran, approval } = deletion(reportOf(test));
    expect(ran).toBe(true);
    expect(approval).toMatchObject({ outcome: "approved" });
    expect(approval?.people).toEqual([
      { id: "me", name: "Me Here", channel: "terminal", evidence: localUser },
    ]);
  });

  it("lets the local user approve their own run where the rule allows self-approval", async () => {
    const test = terminalAnswering("1");

    const exitCode = await runExample(cleanupWithRule({ allowSelfApproval: true }), {
      approve: "ask",
      approverDirectory: team,
      json: true,
      io: test.io,
    });

    expect(exitCode).toBe(0);
    const { ran, approval } = deletion(reportOf(test));
    expect(ran).toBe(true);
    expect(approval).toMatchObject({ outcome: "approved" });
  });

  it("refuses a local user of another role, and one the directory does not know (approver_not_allowed)", async () => {
    const sales = directoryFile("sales", [
      { id: "me", name: "Me Here", roles: ["sales"], identities: { terminal: [localUser] } },
      { id: "bob", name: "Bob Roy", roles: ["oncall"], identities: { messaging: ["sl_bob"] } },
    ]);
    const strangers = directoryFile("strangers", [
      { id: "bob", name: "Bob Roy", roles: ["oncall"], identities: { messaging: ["sl_bob"] } },
    ]);
    for (const [file, example] of [
      [sales, cleanupWithRule({ roles: ["oncall"], allowSelfApproval: true })],
      [strangers, callbackCleanup],
    ] as const) {
      const test = terminalAnswering("1");

      const exitCode = await runExample(example, {
        approve: "ask",
        approverDirectory: file,
        startedBy: "bob",
        json: true,
        io: test.io,
      });

      expect(exitCode, file).toBe(0);
      const { ran, approval } = deletion(reportOf(test));
      expect(ran, file).toBe(false);
      expect(approval, file).toMatchObject({ outcome: "refused", code: "approver_not_allowed" });
    }
  });

  it("does not take the messaging simulator's own approval as a person's: with a directory it approves nothing", async () => {
    const test = createTestIo();

    const exitCode = await runCli(["run", "callback-cleanup", "--approve", "approve", "--json"], {
      ...test.io,
      env: { SWITCHYARD_APPROVER_DIRECTORY: team },
    });

    expect(exitCode).toBe(0);
    const { ran, approval } = deletion(reportOf(test));
    expect(ran).toBe(false);
    expect(approval).toMatchObject({ outcome: "refused", code: "approver_not_allowed" });
  });
});

describe("the approver directory's flags", () => {
  it("are read by run, resume, worker and mcp", () => {
    expect(
      parseCommandLine(["run", "x", "--approver-directory", "a.json", "--started-by", "bob"]),
    ).toMatchObject({ arguments: { approverDirectory: "a.json", startedBy: "bob" } });
    expect(parseCommandLine(["resume", "r", "--approver-directory", "a.json"])).toMatchObject({
      arguments: { approverDirectory: "a.json" },
    });
    expect(parseCommandLine(["worker", "--approver-directory", "a.json"])).toMatchObject({
      arguments: { approverDirectory: "a.json" },
    });
    expect(
      parseCommandLine(["mcp", "--approver-directory", "a.json", "--host-user", "alice"]),
    ).toMatchObject({ arguments: { approverDirectory: "a.json", hostUser: "alice" } });
    expect(() => parseCommandLine(["run", "x", "--started-by", " "])).toThrow(
      /--started-by needs a value, e\.g\. --started-by alice/,
    );
  });

  it("refuse, before anything runs, a file that is not a directory, --started-by without one, and an id nobody has", async () => {
    const broken = join(folder, "broken.json");
    writeFileSync(broken, '{ "people": [{ "id": "a" }, { "id": "a" }] }');
    const cases: Array<[string[], RegExp]> = [
      [
        ["--approver-directory", join(folder, "missing.json")],
        /--approver-directory: the approver directory .*missing\.json cannot be read \(ENOENT\)/,
      ],
      [["--approver-directory", broken], /broken\.json: .*"a" is used by another person/],
      [["--started-by", "bob"], /--started-by names a person of the approver directory/],
      [
        ["--approver-directory", team, "--started-by", "nobody"],
        /--started-by "nobody" is nobody's id in the approver directory/,
      ],
    ];
    for (const [flags, message] of cases) {
      const test = createTestIo();
      const exitCode = await runCli(
        ["run", "callback-cleanup", "--approve", "deny", ...flags],
        test.io,
      );
      expect(exitCode, flags.join(" ")).toBe(2);
      expect(test.stderr(), flags.join(" ")).toMatch(message);
      expect(test.stderr()).not.toContain("step 1");
    }
  });
});
