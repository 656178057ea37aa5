import { describe, expect, it } from "vitest";
import { CommandError } from "../../src/cli/command-error.js";
import { parseCommandLine, parseRunArguments } from "../../src/cli/parse-arguments.js";

function usageMessage(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(CommandError);
    expect((error as CommandError).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error(`${argv.join(" ")} was accepted`);
}

describe("parseCommandLine", () => {
  it("reads run with its flags", () => {
    expect(
      parseCommandLine([
        "run",
        "docs-edit",
        "--task",
        "Check the site",
        "--approve",
        "deny",
        "--json",
      ]),
    ).toEqual({
      command: "run",
      example: "docs-edit",
      arguments: {
        task: "Check the site",
        approve: "deny",
        noWait: false,
        allowEdits: false,
        json: true,
        help: false,
      },
    });
    expect(parseCommandLine(["run", "order-report", "--task=-5% on everything"])).toMatchObject({
      arguments: { task: "-5% on everything" },
    });
  });

  it("leaves --approve out when it is not given, so the terminal decides", () => {
    expect(parseCommandLine(["run", "order-report"])).toEqual({
      command: "run",
      example: "order-report",
      arguments: { noWait: false, allowEdits: false, json: false, help: false },
    });
  });

  it("reads run --no-wait, runs and resume", () => {
    expect(parseCommandLine(["run", "callback-cleanup", "--no-wait", "--json"])).toMatchObject({
      command: "run",
      arguments: { noWait: true, json: true },
    });
    expect(parseCommandLine(["runs"])).toEqual({
      command: "runs",
      arguments: { json: false, help: false },
    });
    expect(parseCommandLine(["runs", "--status", "suspended, running", "--json"])).toEqual({
      command: "runs",
      arguments: { status: ["suspended", "running"], json: true, help: false },
    });
    expect(parseCommandLine(["resume", "run_1", "--json", "--take-over"])).toEqual({
      command: "resume",
      runId: "run_1",
      arguments: { json: true, takeOver: true, allowEdits: false, help: false },
    });
    expect(parseCommandLine(["run", "callback-cleanup", "--allow-edits"])).toMatchObject({
      arguments: { allowEdits: true },
    });
    expect(parseCommandLine(["resume", "run_1", "--allow-edits"])).toMatchObject({
      arguments: { allowEdits: true },
    });
    expect(parseCommandLine(["worker", "--allow-edits"])).toMatchObject({
      arguments: { allowEdits: true },
    });
    expect(parseCommandLine(["resume"])).toMatchObject({ command: "resume", runId: undefined });
  });

  it("reads help, version and per-command help", () => {
    expect(parseCommandLine([])).toEqual({ command: "help", topic: undefined, requested: false });
    expect(parseCommandLine(["--help"])).toMatchObject({ command: "help", requested: true });
    expect(parseCommandLine(["help", "sim"])).toMatchObject({ topic: { name: "sim" } });
    expect(parseCommandLine(["--version"])).toEqual({ command: "version" });
    expect(parseCommandLine(["run", "-h"])).toMatchObject({
      command: "run",
      arguments: { help: true },
    });
    expect(parseCommandLine(["sim", "--help"])).toMatchObject({ arguments: { help: true } });
  });

  it("reads sim's flags", () => {
    expect(parseCommandLine(["sim", "--port", "7000", "--scenario", "order-report"])).toEqual({
      command: "sim",
      arguments: { port: 7000, scenario: "order-report", help: false },
    });
  });

  it("reads mcp's flags", () => {
    expect(parseCommandLine(["mcp"])).toEqual({ command: "mcp", arguments: { help: false } });
    expect(
      parseCommandLine([
        "mcp",
        "--tools",
        "orders, docs,orders",
        "--http",
        "0",
        "--approve",
        "deny",
      ]),
    ).toEqual({
      command: "mcp",
      arguments: { tools: ["orders", "docs"], http: 0, approve: "deny", help: false },
    });
    expect(usageMessage(["mcp", "--tools", "orders,billing"])).toBe(
      '--tools must name tool sets among orders, docs, messaging, comma-separated; got "orders,billing".',
    );
    expect(usageMessage(["mcp", "--http", "70000"])).toBe(
      '--http must be a port number from 0 (a free port) to 65535, got "70000".',
    );
  });

  it("checks each entry of mcp's --allowed-hosts and --allowed-origins", () => {
    expect(
      parseCommandLine([
        "mcp",
        "--http",
        "0",
        "--allowed-hosts",
        "localhost, [::1],mcp.example.com",
        "--allowed-origins",
        "http://localhost:5173,https://app.example.com",
      ]),
    ).toEqual({
      command: "mcp",
      arguments: {
        http: 0,
        allowedHosts: ["localhost", "[::1]", "mcp.example.com"],
        allowedOrigins: ["http://localhost:5173", "https://app.example.com"],
        help: false,
      },
    });
    expect(usageMessage(["mcp", "--http", "0", "--allowed-hosts", "localhost:8931"])).toBe(
      '--allowed-hosts: "localhost:8931" is not a host name without port; give them comma-separated (e.g. --allowed-hosts localhost,127.0.0.1,[::1],mcp.example.com).',
    );
    expect(
      usageMessage([
        "mcp",
        "--http",
        "0",
        "--allowed-origins",
        "localhost:5173/app,ftp://x.example,null",
      ]),
    ).toBe(
      '--allowed-origins: "localhost:5173/app", "ftp://x.example", "null" are not origins (scheme://host[:port], no path); give them comma-separated (e.g. --allowed-origins http://localhost:5173,https://app.example.com).',
    );
  });

  it("reads the worker's options, durations with their units", () => {
    expect(
      parseCommandLine([
        "worker",
        "--concurrency",
        "8",
        "--recheck-after",
        "5s",
        "--poll-interval",
        "250ms",
        "--lease",
        "2m",
      ]),
    ).toEqual({
      command: "worker",
      arguments: {
        concurrency: 8,
        recheckAfterMs: 5_000,
        pollIntervalMs: 250,
        leaseMs: 120_000,
        help: false,
      },
    });
    expect(parseCommandLine(["worker", "--prune-after", "7d"])).toEqual({
      command: "worker",
      arguments: { pruneAfterMs: 604_800_000, help: false },
    });
    expect(parseCommandLine(["worker", "--recheck-after", "0s"])).toEqual({
      command: "worker",
      arguments: { recheckAfterMs: 0, help: false },
    });
    expect(
      parseCommandLine(["worker", "--first-recheck-after", "200ms", "--recheck-after", "10m"]),
    ).toEqual({
      command: "worker",
      arguments: { firstRecheckAfterMs: 200, recheckAfterMs: 600_000, help: false },
    });
    expect(parseCommandLine(["worker", "--max-attempts", "5"])).toEqual({
      command: "worker",
      arguments: { maxAttempts: 5, help: false },
    });
    expect(parseCommandLine(["worker", "--max-retry-after", "6h"])).toEqual({
      command: "worker",
      arguments: { maxRetryAfterMs: 21_600_000, help: false },
    });
    expect(usageMessage(["worker", "--max-retry-after", "soon"])).toMatch(/^--max-retry-after /);
    for (const given of ["0", "2.5", "many"]) {
      expect(usageMessage(["worker", "--max-attempts", given])).toBe(
        `--max-attempts must be a whole number, at least 1 (the failed resumes in a row before a run ends failed), got "${given}".`,
      );
    }
    expect(parseCommandLine(["worker", "--checks-per-second", "0.5"])).toEqual({
      command: "worker",
      arguments: { checksPerSecond: 0.5, help: false },
    });
    expect(usageMessage(["worker", "--checks-per-second", "0"])).toBe(
      '--checks-per-second must be a positive number of approval checks per second, such as 50 or 0.5; got "0".',
    );
    expect(usageMessage(["worker", "--recheck-after", "30"])).toBe(
      '--recheck-after needs a duration, such as 500ms, 30s, 5m, 12h, 7d or 2w; got "30".',
    );
    expect(usageMessage(["worker", "--lease", "10ms"])).toBe(
      '--lease needs a duration of at least 1000 ms, such as 500ms, 30s, 5m, 12h, 7d or 2w; got "10ms".',
    );
  });

  it("reads a negative number after a numeric flag as that flag's wrong value, not as a missing one", () => {
    expect(usageMessage(["worker", "--concurrency", "-1"])).toBe(
      '--concurrency must be a whole number from 1 to 1000, got "-1".',
    );
    expect(usageMessage(["worker", "--max-attempts", "-3"])).toMatch(
      /^--max-attempts must be a whole number, at least 1 .*got "-3"\.$/,
    );
    expect(usageMessage(["worker", "--checks-per-second", "-0.5"])).toMatch(
      /^--checks-per-second must be a positive number .*got "-0\.5"\.$/,
    );
    expect(usageMessage(["worker", "--recheck-after", "-5s"])).toMatch(
      /^--recheck-after needs a duration, .*got "-5s"\.$/,
    );
    expect(usageMessage(["sim", "--port", "-7000"])).toBe(
      '--port must be a whole number from 1 to 65532 (the first of four ports), got "-7000".',
    );
    expect(usageMessage(["mcp", "--http", "-1"])).toBe(
      '--http must be a port number from 0 (a free port) to 65535, got "-1".',
    );
    expect(usageMessage(["run", "callback-cleanup", "--max-tokens", "-100"])).toMatch(
      /^--max-tokens must be a whole number of at least 1, .*got "-100"\. .*--extend-budget\.$/,
    );
    // A flag's own name still ends a missing value, and text may start with a digit's minus.
    expect(usageMessage(["run", "callback-cleanup", "--task", "--json"])).toMatch(
      /^--task needs a value/,
    );
    expect(parseCommandLine(["run", "order-report", "--task", "-5% on all"])).toMatchObject({
      arguments: { task: "-5% on all" },
    });
  });

  it("names each mistake and the way out", () => {
    expect(usageMessage(["deploy"])).toBe(
      'Unknown command "deploy"; the commands are run, runs, resume, worker, examples, sim, mcp and audit (see switchyard --help).',
    );
    expect(usageMessage(["--json"])).toBe(
      "Unknown option --json: put a command first (run, runs, resume, worker, examples, sim, mcp, audit); see switchyard --help.",
    );
    expect(usageMessage(["run", "order-report", "--task"])).toBe(
      '--task needs a value: --task TEXT (quote text with spaces; a value starting with "-" goes as --task=-...).',
    );
    expect(usageMessage(["run", "order-report", "--task", "--json"])).toMatch(
      /^--task needs a value/,
    );
    expect(usageMessage(["run", "order-report", "--task", "  "])).toMatch(
      /^--task needs a non-empty text/,
    );
    expect(usageMessage(["run", "order-report", "--json=yes"])).toBe(
      "--json takes no value; write --json alone.",
    );
    expect(usageMessage(["run", "order-report", "--approve", "yes"])).toBe(
      '--approve must be one of ask, browser, approve, deny; got "yes".',
    );
    expect(usageMessage(["run", "order-report", "Summarise", "orders"])).toMatch(
      /^switchyard run takes one example name, got 3 words/,
    );
    expect(usageMessage(["examples", "all"])).toBe(
      'switchyard examples takes no arguments, got "all"; see switchyard examples --help.',
    );
    expect(usageMessage(["sim", "--port", "70000"])).toBe(
      '--port must be a whole number from 1 to 65532 (the first of four ports), got "70000".',
    );
    expect(usageMessage(["runs", "--status", "waiting"])).toBe(
      '--status must be one of running, suspended, completed, max_steps, approval_expired, budget_exhausted, aborted, failed (or several, comma-separated); got "waiting".',
    );
    expect(usageMessage(["resume", "run_1", "run_2"])).toBe(
      "switchyard resume takes one run id, got 2 words (run_1 run_2); switchyard runs lists them.",
    );
    expect(usageMessage(["sim", "-x"])).toBe(
      "Unknown option -x for switchyard sim; its options are --approve ask|browser|approve|deny, --scenario NAME, --port N, --help.",
    );
  });
});

describe("parseRunArguments", () => {
  it("takes the run flags and no example name", () => {
    expect(parseRunArguments(["--approve", "ask"], "examples/order-report.ts")).toEqual({
      approve: "ask",
      noWait: false,
      allowEdits: false,
      json: false,
      help: false,
    });
    expect(() => parseRunArguments(["order-report"], "examples/order-report.ts")).toThrow(
      'examples/order-report.ts takes no arguments, got "order-report"; put a task in quotes after --task.',
    );
  });
});
