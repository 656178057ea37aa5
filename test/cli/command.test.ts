import { createServer } from "node:net";
import type { RunReport } from "switchyard-agents/cli";
import { describe, expect, it } from "vitest";
import { finished, runSwitchyard, spawnScript } from "./spawn-switchyard.js";

const exampleNames = ["callback-cleanup", "docs-edit", "order-report", "custom-tool"];

function parseReport(stdout: string): RunReport {
  const lines = stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as RunReport;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("the switchyard command, run as a user would", () => {
  it("--help lists the commands and the examples", async () => {
    const { code, stdout, stderr } = await runSwitchyard(["--help"]);

    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).toContain("Usage: switchyard <command> [options]");
    for (const command of ["run", "runs", "resume", "examples", "sim"])
      expect(stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    for (const name of exampleNames) expect(stdout).toContain(name);
  });

  it("examples lists each example with its default task", async () => {
    const { code, stdout } = await runSwitchyard(["examples"]);

    expect(code).toBe(0);
    for (const name of exampleNames) expect(stdout).toMatch(new RegExp(`^${name} `, "m"));
    expect(stdout).toContain("default task: Summarise all orders by status.");
  });

  it("run callback-cleanup --approve approve --json prints one JSON object and exits 0", async () => {
    const { code, stdout, stderr } = await runSwitchyard([
      "run",
      "callback-cleanup",
      "--approve",
      "approve",
      "--json",
    ]);

    expect(code).toBe(0);
    const report = parseReport(stdout);
    expect(report.status).toBe("completed");
    expect(report.approvals).toEqual([
      expect.objectContaining({ tool: "delete_callbacks", outcome: "approved" }),
    ]);
    expect(report.output).toMatch(/^Deleted 4 callbacks/);
    expect(stderr).toContain("run completed");
  });

  it("run callback-cleanup --approve deny completes, reports the refusal, exits 0", async () => {
    const { code, stdout } = await runSwitchyard([
      "run",
      "callback-cleanup",
      "--approve",
      "deny",
      "--json",
    ]);

    expect(code).toBe(0);
    const report = parseReport(stdout);
    expect(report.status).toBe("completed");
    expect(report.approvals[0]).toMatchObject({ outcome: "refused", code: "denied" });
    expect(report.output).toMatch(/^Nothing was deleted/);
  });

  it("a bad flag is one line and exit status 2, no stack trace", async () => {
    const { code, stdout, stderr } = await runSwitchyard(["run", "callback-cleanup", "--bogus"]);

    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "switchyard: Unknown option --bogus for switchyard run; its options are --task TEXT, --approve ask|browser|approve|deny, --allow-edits, --no-wait, --max-tool-calls N, --max-tokens N, --extend-budget, --approver-directory FILE, --started-by ID, --json, --help.\n",
    );
  });

  it("an unknown example is one line naming the valid ones", async () => {
    const { code, stderr } = await runSwitchyard(["run", "callback-clean"]);

    expect(code).toBe(2);
    expect(stderr).toBe(
      `switchyard: Unknown example "callback-clean"; the examples are: ${exampleNames.join(", ")}.\n`,
    );
  });

  it("an unreachable service is one line naming it and its address", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/acme/api/v1`;
    const { code, stdout, stderr } = await runSwitchyard(["run", "order-report", "--json"], {
      SWITCHYARD_ORDERS_URL: url,
      SWITCHYARD_ORDERS_TOKEN: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl",
    });

    expect(code).toBe(1);
    expect(stdout).toBe("");
    const errors = stderr.split("\n").filter((line) => line.startsWith("switchyard: "));
    expect(errors).toEqual([
      expect.stringContaining(
        `switchyard: Could not reach the orders service at ${url} (SWITCHYARD_ORDERS_URL): `,
      ),
    ]);
    expect(stderr).toContain("ECONNREFUSED");
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it("sim prints the simulators' addresses and tokens, serves, and stops on SIGTERM", async () => {
    const child = spawnScript("src/cli/main.ts", ["sim", "--approve", "deny"]);
    const result = finished(child);
    let printed = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        printed += chunk.toString("utf8");
        if (printed.includes("export SWITCHYARD_APPROVER_LINK=")) resolve();
      });
      child.on("close", () => reject(new Error(`sim exited early: ${printed}`)));
    });
    const exported = Object.fromEntries(
      [...printed.matchAll(/^export (SWITCHYARD_\w+)=(\S+)$/gm)].map((match) => [
        match[1],
        match[2],
      ]),
    );
    expect(Object.keys(exported).sort()).toEqual([
      "SWITCHYARD_APPROVER_LINK",
      "SWITCHYARD_DOCS_TOKEN",
      "SWITCHYARD_DOCS_URL",
      "SWITCHYARD_MESSAGING_TOKEN",
      "SWITCHYARD_MESSAGING_URL",
      "SWITCHYARD_ORDERS_TOKEN",
      "SWITCHYARD_ORDERS_URL",
      "SWITCHYARD_REASONER_API_KEY",
      "SWITCHYARD_REASONER_URL",
    ]);
    const callbacksUrl = `${exported.SWITCHYARD_ORDERS_URL}/callbacks`;
    const answer = await fetch(callbacksUrl, {
      headers: { authorization: `Bearer ${exported.SWITCHYARD_ORDERS_TOKEN}` },
    });
    expect(answer.status).toBe(200);

    child.kill("SIGTERM");
    const { code, stdout } = await result;

    expect(code).toBe(0);
    expect(stdout).toContain("SIGTERM: simulators stopped.");
    await expect(fetch(callbacksUrl)).rejects.toThrow();
  });
});
