import { parseArgs } from "node:util";
import { type RunStateStatus, runStateStatuses } from "../agent/durable/run-state.js";
import type { RunBudget } from "../agent/run-budget.js";
import { allowedHostName, originOf } from "../mcp/request-sources.js";
import { maxTimerMs } from "../tools/tool-timeout.js";
import { type ApprovalMode, approvalModes, isApprovalMode } from "./approval-mode.js";
import { usageError } from "./command-error.js";
import {
  type CommandSpec,
  commandSpecs,
  findCommandSpec,
  mcpToolSetNames,
  type OptionSpec,
  runOptions,
} from "./command-specs.js";
import type { AuditAction, AuditCommandLine } from "./commands/audit-command.js";
import { parseDuration } from "./parse-duration.js";

/** One of the tool sets `switchyard mcp` serves. */
export type McpToolSetName = (typeof mcpToolSetNames)[number];

/** The flags of `switchyard run` and of an example file run on its own. */
export interface RunArguments {
  task?: string;
  /** Absent when the flag was not given: the default depends on the terminal. */
  approve?: ApprovalMode;
  /** `--no-wait`: stop at the first approval request; the run is saved to resume later. */
  noWait: boolean;
  /** `--allow-edits`: the person may change an action before approving it. */
  allowEdits: boolean;
  /** `--max-tool-calls N`, `--max-tokens N`, `--extend-budget`: the run's budget. */
  budget?: RunBudget;
  /** `--approver-directory FILE`: who may approve. */
  approverDirectory?: string;
  /** `--started-by ID`: the directory id of the person the run is started for. */
  startedBy?: string;
  json: boolean;
  help: boolean;
}

/** The flags of `switchyard runs`. */
export interface RunsArguments {
  /** Only runs with one of these statuses; absent for every status. */
  status?: RunStateStatus[];
  json: boolean;
  help: boolean;
}

/** The flags of `switchyard resume`. */
export interface ResumeArguments {
  json: boolean;
  /** `--take-over`: resume a run whose process crashed. */
  takeOver: boolean;
  /** `--allow-edits`: read an approval with changes (and offer it in new questions). */
  allowEdits: boolean;
  /** `--approver-directory FILE`: who may approve. */
  approverDirectory?: string;
  help: boolean;
}

/** The flags of `switchyard worker`. */
export interface WorkerArguments {
  /** `--concurrency N`: runs in hand at once. */
  concurrency?: number;
  /** `--recheck-after DURATION`: the longest wait before a run whose answer is still pending is looked at again. */
  recheckAfterMs?: number;
  /** `--first-recheck-after DURATION`: the first wait before a new question is asked about. */
  firstRecheckAfterMs?: number;
  /** `--checks-per-second N`: the fleet's budget of approval checks per second. */
  checksPerSecond?: number;
  /** `--poll-interval DURATION`: how long an idle worker waits before looking for due runs again. */
  pollIntervalMs?: number;
  /** `--lease DURATION`: how long a claim lasts unless renewed (a dead worker's runs wait this long). */
  leaseMs?: number;
  /** `--prune-after DURATION`: runs that ended longer ago than this are deleted. */
  pruneAfterMs?: number;
  /** `--max-attempts N`: failed resumes in a row before the worker gives up on a run (it ends failed). */
  maxAttempts?: number;
  /** `--max-retry-after DURATION`: the longest wait before a run whose resume failed is tried again. */
  maxRetryAfterMs?: number;
  /** `--allow-edits`: read an approval with changes (and offer it in new questions). */
  allowEdits?: boolean;
  /** `--approver-directory FILE`: who may approve. */
  approverDirectory?: string;
  help: boolean;
}

/** The flags of `switchyard sim`. */
export interface SimArguments {
  approve?: ApprovalMode;
  scenario?: string;
  /** First of four consecutive ports. */
  port?: number;
  help: boolean;
}

/** The flags of `switchyard mcp`. */
export interface McpArguments {
  /** The tool sets to serve; absent for all. */
  tools?: McpToolSetName[];
  /** `--http PORT`: serve over Streamable HTTP on this port (0: a free one) instead of stdio. */
  http?: number;
  /** `--allowed-origins`: the web origins allowed to call besides the server's own (with `--http`). */
  allowedOrigins?: string[];
  /** `--allowed-hosts`: the host names a request's Host header may name (with `--http`). */
  allowedHosts?: string[];
  /** A mode of the messaging simulator, or `elicit`: ask the MCP host's user through the client. */
  approve?: ApprovalMode | "elicit";
  /** `--elicitation-timeout`, in milliseconds: how long the host's user has to answer (with `--approve elicit`). */
  elicitationTimeoutMs?: number;
  /** `--approver-directory FILE`: who may approve. */
  approverDirectory?: string;
  /** `--host-user NAME`: who the MCP host's user is. */
  hostUser?: string;
  help: boolean;
}

/** What the command line asks for. */
export type CommandLine =
  /** `requested` is false when no command was given at all (a usage mistake). */
  | { command: "help"; topic: CommandSpec | undefined; requested: boolean }
  | { command: "version" }
  | { command: "run"; example: string | undefined; arguments: RunArguments }
  | { command: "runs"; arguments: RunsArguments }
  /** `switchyard audit verify|show|export|keygen ...` */
  | ({ command: "audit" } & AuditCommandLine)
  /** `switchyard runs cancel <run-id> [--take-over]` */
  | { command: "runs-cancel"; runId: string | undefined; takeOver: boolean; help: boolean }
  /** `switchyard runs prune --older-than AGE` */
  | { command: "runs-prune"; olderThan: string | undefined; help: boolean }
  /** `switchyard runs wake <run-id>` */
  | { command: "runs-wake"; runId: string | undefined; help: boolean }
  /** `switchyard runs show <run-id> [--json]` */
  | { command: "runs-show"; runId: string | undefined; json: boolean; help: boolean }
  | { command: "resume"; runId: string | undefined; arguments: ResumeArguments }
  | { command: "worker"; arguments: WorkerArguments }
  | { command: "examples"; help: boolean }
  | { command: "sim"; arguments: SimArguments }
  | { command: "mcp"; arguments: McpArguments };

/**
 * Reads `switchyard`'s arguments (without `node` and the script). Throws a
 * usage `CommandError` naming the mistake and the way out.
 */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const [first, ...rest] = argv;
  if (first === undefined) return { command: "help", topic: undefined, requested: false };
  if (first === "--help" || first === "-h") {
    return { command: "help", topic: undefined, requested: true };
  }
  if (first === "--version" || first === "-V" || first === "-v") return { command: "version" };
  if (first === "help") {
    const topic = rest[0] === undefined ? undefined : findCommandSpec(rest[0]);
    if (rest[0] !== undefined && !topic) throw unknownCommand(rest[0]);
    return { command: "help", topic, requested: true };
  }
  if (first.startsWith("-")) {
    throw usageError(
      `Unknown option ${first}: put a command first (${commandList()}); see switchyard --help.`,
    );
  }
  const spec = findCommandSpec(first);
  if (!spec) throw unknownCommand(first);
  const { values, positionals } = readFlags(spec.options, rest, `switchyard ${spec.name}`);
  const help = values.help === true;
  if (spec.name === "run") {
    if (positionals.length > 1 && !help) {
      throw usageError(
        `switchyard run takes one example name, got ${positionals.length} words (${positionals.join(" ")}); put a task in quotes after --task.`,
      );
    }
    return {
      command: "run",
      example: positionals[0],
      arguments: readRunValues(values, help),
    };
  }
  if (spec.name === "resume") {
    if (positionals.length > 1 && !help) {
      throw usageError(
        `switchyard resume takes one run id, got ${positionals.length} words (${positionals.join(" ")}); switchyard runs lists them.`,
      );
    }
    return {
      command: "resume",
      runId: positionals[0],
      arguments: {
        json: values.json === true,
        takeOver: values["take-over"] === true,
        allowEdits: values["allow-edits"] === true,
        ...textFlag(values, "approver-directory", "approverDirectory", help),
        help,
      },
    };
  }
  if (spec.name === "runs") {
    const line = readRunsAction(positionals, values, help);
    if (line) return line;
  }
  if (spec.name === "audit") return readAuditLine(positionals, values, help);
  if (positionals.length > 0 && !help) {
    throw usageError(
      `switchyard ${spec.name} takes no arguments, got "${positionals[0]}"; see switchyard ${spec.name} --help.`,
    );
  }
  if (spec.name === "examples") return { command: "examples", help };
  if (spec.name === "runs") return { command: "runs", arguments: readRunsValues(values, help) };
  if (spec.name === "worker") {
    return { command: "worker", arguments: readWorkerValues(values, help) };
  }
  if (spec.name === "mcp") return { command: "mcp", arguments: readMcpValues(values, help) };
  return { command: "sim", arguments: readSimValues(values, help) };
}

/**
 * Reads the flags of an example file run on its own (`npx tsx
 * examples/<name>.ts --task ...`): those of `switchyard run`, no example name.
 */
export function parseRunArguments(args: readonly string[], commandName: string): RunArguments {
  const { values, positionals } = readFlags(runOptions, args, commandName);
  if (positionals.length > 0) {
    throw usageError(
      `${commandName} takes no arguments, got "${positionals[0]}"; put a task in quotes after --task.`,
    );
  }
  return readRunValues(values, values.help === true);
}

type FlagValues = Record<string, string | boolean | undefined>;

function readFlags(
  options: readonly OptionSpec[],
  args: readonly string[],
  commandName: string,
): { values: FlagValues; positionals: string[] } {
  try {
    const parsed = parseArgs({
      args: joinNegativeNumbers(args, options),
      options: Object.fromEntries(
        options.map((option) => [
          option.name,
          option.short ? { type: option.type, short: option.short } : { type: option.type },
        ]),
      ),
      strict: true,
      allowPositionals: true,
    });
    return { values: parsed.values as FlagValues, positionals: parsed.positionals };
  } catch (error) {
    throw describeParseError(error, options, commandName);
  }
}

/**
 * `--max-tool-calls -1` as `--max-tool-calls=-1`: `parseArgs` takes a value
 * starting with "-" for an option of its own and would report a missing
 * value; joined, the flag's own check names the number as wrong. Only a
 * "-" followed by a digit is joined: no flag is spelled that way.
 */
function joinNegativeNumbers(args: readonly string[], options: readonly OptionSpec[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const next = args[index + 1];
    const option = options.find((candidate) => arg === `--${candidate.name}`);
    if (option?.type === "string" && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      index++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

function describeParseError(error: unknown, options: readonly OptionSpec[], commandName: string) {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const flagList = options
    .map((option) => `--${option.name}${option.valueName ? ` ${option.valueName}` : ""}`)
    .join(", ");
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const flag = /Unknown option '([^']+)'/.exec(message)?.[1] ?? "given";
    return usageError(`Unknown option ${flag} for ${commandName}; its options are ${flagList}.`, {
      cause: error,
    });
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const flag = /'(--?[\w-]+)/.exec(message)?.[1] ?? "an option";
    const option = options.find((candidate) => flag === `--${candidate.name}`);
    if (option?.type === "boolean") {
      return usageError(`${flag} takes no value; write ${flag} alone.`, { cause: error });
    }
    const hint = option?.valueName ? ` ${option.valueName}` : " VALUE";
    return usageError(
      `${flag} needs a value: ${flag}${hint} (quote text with spaces; a value starting with "-" goes as ${flag}=-...).`,
      { cause: error },
    );
  }
  return usageError(`${message} (see ${commandName} --help)`, { cause: error });
}

function readRunValues(values: FlagValues, help: boolean): RunArguments {
  const task = values.task as string | undefined;
  if (task !== undefined && task.trim() === "" && !help) {
    throw usageError(
      '--task needs a non-empty text, e.g. --task "Summarise all orders by status."',
    );
  }
  const approve = readApprove(values.approve as string | undefined, help);
  const budget = help ? undefined : readBudgetFlags(values);
  return {
    ...textFlag(values, "approver-directory", "approverDirectory", help),
    ...textFlag(values, "started-by", "startedBy", help),
    ...(task !== undefined ? { task } : {}),
    ...(approve !== undefined ? { approve } : {}),
    ...(budget !== undefined ? { budget } : {}),
    noWait: values["no-wait"] === true,
    allowEdits: values["allow-edits"] === true,
    json: values.json === true,
    help,
  };
}

/** `--max-tool-calls N`, `--max-tokens N` and `--extend-budget` (by as much again); none given: no budget. */
function readBudgetFlags(values: FlagValues): RunBudget | undefined {
  const count = (flag: string, unit: string): number | undefined => {
    const text = values[flag] as string | undefined;
    if (text === undefined) return undefined;
    // A budget of 0 would end the run before it did anything: at least 1, and --extend-budget to go beyond.
    if (!/^\d{1,15}$/.test(text) || Number(text) < 1) {
      throw usageError(
        `--${flag} must be a whole number of at least 1, e.g. --${flag} 20; got "${text}". To let a person allow more ${unit} when the budget runs out, add --extend-budget.`,
      );
    }
    return Number(text);
  };
  const maxToolCalls = count("max-tool-calls", "tool calls");
  const maxTokens = count("max-tokens", "tokens");
  const extend = values["extend-budget"] === true;
  if (maxToolCalls === undefined && maxTokens === undefined) {
    if (extend) {
      throw usageError(
        "--extend-budget needs a budget to extend: add --max-tool-calls N or --max-tokens N.",
      );
    }
    return undefined;
  }
  return {
    ...(maxToolCalls !== undefined ? { maxToolCalls } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(extend
      ? {
          onExhausted: "ask" as const,
          // As much again.
          extendBy: {
            ...(maxToolCalls !== undefined ? { toolCalls: maxToolCalls } : {}),
            ...(maxTokens !== undefined ? { tokens: maxTokens } : {}),
          },
        }
      : {}),
  };
}

/** The flags each `switchyard audit` action takes (beyond --json and --help). */
const auditActionFlags: Record<AuditAction, readonly string[]> = {
  verify: ["public-key", "anchor"],
  show: ["file", "public-key"],
  export: ["file", "public-key", "since", "until", "out"],
  keygen: ["public-key"],
};

/** `audit verify [<file>]`, `audit show <run-id>`, `audit export [<run-id>]`, `audit keygen [<file>]`. */
function readAuditLine(
  positionals: readonly string[],
  values: FlagValues,
  help: boolean,
): CommandLine {
  const [action, target, ...extra] = positionals;
  const text = (name: string) => values[name] as string | undefined;
  const line = {
    target,
    file: text("file"),
    publicKey: text("public-key"),
    anchor: text("anchor"),
    since: text("since"),
    until: text("until"),
    out: text("out"),
    json: values.json === true,
    help,
  };
  if (help) return { command: "audit", action: undefined, ...line };
  if (action === undefined || !Object.hasOwn(auditActionFlags, action)) {
    throw usageError(
      `switchyard audit takes verify [<file>], show <run-id>, export [<run-id>] or keygen [<file>]${action === undefined ? "" : `, got "${action}"`}; see switchyard audit --help.`,
    );
  }
  const known = action as AuditAction;
  if ((known === "show" && target === undefined) || extra.length > 0) {
    throw usageError(
      {
        verify:
          "switchyard audit verify takes at most one file, the audit log or bundle to check (e.g. .switchyard/audit.jsonl); without one it checks the runs' audit log.",
        show: "switchyard audit show takes one run id; switchyard runs lists them.",
        export:
          "switchyard audit export takes at most one run id (and --since/--until for a time range).",
        keygen: "switchyard audit keygen takes at most one file, where the private key goes.",
      }[known],
    );
  }
  for (const flag of ["file", "public-key", "anchor", "since", "until", "out"]) {
    if (values[flag] !== undefined && !auditActionFlags[known].includes(flag)) {
      throw usageError(
        flag === "file" && known === "verify"
          ? "switchyard audit verify takes the file as its argument, not --file."
          : `switchyard audit ${known} does not take --${flag}; see switchyard audit --help.`,
      );
    }
  }
  return { command: "audit", action: known, ...line };
}

/** `runs cancel` and `runs prune`; undefined for the listing, whose flags they do not take. */
function readRunsAction(
  positionals: readonly string[],
  values: FlagValues,
  help: boolean,
): CommandLine | undefined {
  const [action, ...rest] = positionals;
  const olderThan = values["older-than"] as string | undefined;
  const takeOver = values["take-over"] === true;
  if (action === "cancel") {
    if ((rest.length > 1 || olderThan !== undefined || values.status !== undefined) && !help) {
      throw usageError(
        "switchyard runs cancel takes one run id and --take-over at most; switchyard runs lists the saved runs.",
      );
    }
    return { command: "runs-cancel", runId: rest[0], takeOver, help };
  }
  if (action === "wake") {
    if (
      (rest.length > 1 ||
        olderThan !== undefined ||
        takeOver ||
        values.status !== undefined ||
        values.json === true) &&
      !help
    ) {
      throw usageError(
        "switchyard runs wake takes one run id; switchyard runs --status suspended lists the runs waiting for an answer.",
      );
    }
    return { command: "runs-wake", runId: rest[0], help };
  }
  if (action === "show") {
    if (
      (rest.length > 1 || olderThan !== undefined || takeOver || values.status !== undefined) &&
      !help
    ) {
      throw usageError(
        "switchyard runs show takes one run id and --json at most; switchyard runs lists the saved runs.",
      );
    }
    return { command: "runs-show", runId: rest[0], json: values.json === true, help };
  }
  if (action === "prune") {
    if ((rest.length > 0 || takeOver || values.status !== undefined) && !help) {
      throw usageError("switchyard runs prune takes only --older-than AGE (such as 7d).");
    }
    return { command: "runs-prune", olderThan, help };
  }
  if (action !== undefined && !help) {
    throw usageError(
      `switchyard runs takes show <run-id>, wake <run-id>, cancel <run-id> or prune --older-than AGE, or nothing to list the runs; got "${action}".`,
    );
  }
  if ((olderThan !== undefined || takeOver) && !help) {
    throw usageError(
      `${olderThan !== undefined ? "--older-than" : "--take-over"} belongs to switchyard runs ${olderThan !== undefined ? "prune" : "cancel"}.`,
    );
  }
  return undefined;
}

function readRunsValues(values: FlagValues, help: boolean): RunsArguments {
  const text = values.status as string | undefined;
  const json = values.json === true;
  if (text === undefined || help) return { json, help };
  const given = text.split(",").map((part) => part.trim());
  const unknown = given.filter((part) => !runStateStatuses.includes(part as RunStateStatus));
  if (unknown.length > 0) {
    throw usageError(
      `--status must be one of ${runStateStatuses.join(", ")} (or several, comma-separated); got "${text}".`,
    );
  }
  return { status: [...new Set(given as RunStateStatus[])], json, help };
}

function readWorkerValues(values: FlagValues, help: boolean): WorkerArguments {
  if (help) return { help };
  const worker: WorkerArguments = {
    help,
    ...textFlag(values, "approver-directory", "approverDirectory", help),
  };
  if (values["allow-edits"] === true) worker.allowEdits = true;
  const text = values.concurrency as string | undefined;
  if (text !== undefined) {
    const concurrency = Number(text);
    if (!/^\d+$/.test(text) || concurrency < 1 || concurrency > 1000) {
      throw usageError(`--concurrency must be a whole number from 1 to 1000, got "${text}".`);
    }
    worker.concurrency = concurrency;
  }
  const attemptsText = values["max-attempts"] as string | undefined;
  if (attemptsText !== undefined) {
    const maxAttempts = Number(attemptsText);
    if (!/^\d+$/.test(attemptsText) || maxAttempts < 1 || !Number.isSafeInteger(maxAttempts)) {
      throw usageError(
        `--max-attempts must be a whole number, at least 1 (the failed resumes in a row before a run ends failed), got "${attemptsText}".`,
      );
    }
    worker.maxAttempts = maxAttempts;
  }
  const budgetText = values["checks-per-second"] as string | undefined;
  if (budgetText !== undefined) {
    const checksPerSecond = Number(budgetText);
    if (!/^\d+(\.\d+)?$/.test(budgetText) || !(checksPerSecond > 0)) {
      throw usageError(
        `--checks-per-second must be a positive number of approval checks per second, such as 50 or 0.5; got "${budgetText}".`,
      );
    }
    worker.checksPerSecond = checksPerSecond;
  }
  const duration = (flag: string, least: number) => {
    const given = values[flag] as string | undefined;
    return given === undefined ? undefined : parseDuration(given, `--${flag}`, least);
  };
  const recheckAfterMs = duration("recheck-after", 0);
  const firstRecheckAfterMs = duration("first-recheck-after", 0);
  const pollIntervalMs = duration("poll-interval", 1);
  const leaseMs = duration("lease", 1_000);
  const pruneAfterMs = duration("prune-after", 1);
  const maxRetryAfterMs = duration("max-retry-after", 0);
  if (maxRetryAfterMs !== undefined) worker.maxRetryAfterMs = maxRetryAfterMs;
  if (pruneAfterMs !== undefined) worker.pruneAfterMs = pruneAfterMs;
  if (recheckAfterMs !== undefined) worker.recheckAfterMs = recheckAfterMs;
  if (firstRecheckAfterMs !== undefined) worker.firstRecheckAfterMs = firstRecheckAfterMs;
  if (pollIntervalMs !== undefined) worker.pollIntervalMs = pollIntervalMs;
  if (leaseMs !== undefined) worker.leaseMs = leaseMs;
  return worker;
}

function readSimValues(values: FlagValues, help: boolean): SimArguments {
  const approve = readApprove(values.approve as string | undefined, help);
  const scenario = values.scenario as string | undefined;
  const portText = values.port as string | undefined;
  let port: number | undefined;
  if (portText !== undefined && !help) {
    port = Number(portText);
    if (!/^\d+$/.test(portText) || port < 1 || port > 65_532) {
      throw usageError(
        `--port must be a whole number from 1 to 65532 (the first of four ports), got "${portText}".`,
      );
    }
  }
  return {
    ...(approve !== undefined ? { approve } : {}),
    ...(scenario !== undefined ? { scenario } : {}),
    ...(port !== undefined ? { port } : {}),
    help,
  };
}

function readMcpValues(values: FlagValues, help: boolean): McpArguments {
  const approve =
    values.approve === "elicit" && !help
      ? "elicit"
      : readMcpApprove(values.approve as string | undefined, help);
  if (help) return { help };
  const toolsText = values.tools as string | undefined;
  let tools: McpToolSetName[] | undefined;
  if (toolsText !== undefined) {
    const given = toolsText.split(",").map((part) => part.trim());
    const unknown = given.filter((part) => !mcpToolSetNames.includes(part as McpToolSetName));
    if (unknown.length > 0 || given.length === 0) {
      throw usageError(
        `--tools must name tool sets among ${mcpToolSetNames.join(", ")}, comma-separated; got "${toolsText}".`,
      );
    }
    tools = [...new Set(given as McpToolSetName[])];
  }
  const portText = values.http as string | undefined;
  let http: number | undefined;
  if (portText !== undefined) {
    http = Number(portText);
    if (!/^\d+$/.test(portText) || http > 65_535) {
      throw usageError(
        `--http must be a port number from 0 (a free port) to 65535, got "${portText}".`,
      );
    }
  }
  const allowedOrigins = readMcpList(values, "allowed-origins", http);
  const allowedHosts = readMcpList(values, "allowed-hosts", http);
  const timeoutText = values["elicitation-timeout"] as string | undefined;
  if (timeoutText !== undefined && approve !== "elicit") {
    throw usageError(
      "--elicitation-timeout is how long the MCP host's user has to answer an approval question, which only --approve elicit asks: add --approve elicit, or leave --elicitation-timeout out.",
    );
  }
  const elicitationTimeoutMs =
    timeoutText === undefined ? undefined : parseDuration(timeoutText, "--elicitation-timeout");
  if (elicitationTimeoutMs !== undefined && elicitationTimeoutMs > maxTimerMs) {
    throw usageError(
      `--elicitation-timeout can be at most 24 days (a longer wait would end at once); got "${timeoutText}".`,
    );
  }
  return {
    ...(tools !== undefined ? { tools } : {}),
    ...(http !== undefined ? { http } : {}),
    ...(allowedOrigins !== undefined ? { allowedOrigins } : {}),
    ...(allowedHosts !== undefined ? { allowedHosts } : {}),
    ...(approve !== undefined ? { approve } : {}),
    ...(elicitationTimeoutMs !== undefined ? { elicitationTimeoutMs } : {}),
    ...textFlag(values, "approver-directory", "approverDirectory", help),
    ...textFlag(values, "host-user", "hostUser", help),
    help,
  };
}

/** A flag holding a file name or a person's name, when given: a blank value is a usage error. */
function textFlag<Key extends string>(
  values: FlagValues,
  flag: string,
  key: Key,
  help: boolean,
): { [K in Key]?: string } {
  const text = values[flag] as string | undefined;
  if (text === undefined || help) return {};
  if (text.trim() === "") {
    throw usageError(
      `--${flag} needs a value, e.g. --${flag} ${flagExamples[flag] ?? "VALUE"}; got an empty one.`,
    );
  }
  return { [key]: text.trim() } as { [K in Key]?: string };
}

const flagExamples: Record<string, string> = {
  "approver-directory": "approvers.json",
  "started-by": "alice",
  "host-user": "alice",
};

/** `--approve` of `switchyard mcp`: the simulator's modes, and `elicit`. */
function readMcpApprove(value: string | undefined, help: boolean): ApprovalMode | undefined {
  if (value === undefined || help || isApprovalMode(value)) return readApprove(value, help);
  throw usageError(
    `--approve must be one of ${[...approvalModes, "elicit"].join(", ")}; got "${value}".`,
  );
}

/** What each entry of a list flag of `switchyard mcp` must be, in `serveMcpOverHttp`'s rules. */
const mcpLists = {
  "allowed-hosts": {
    accepts: (entry: string) => allowedHostName(entry) !== undefined,
    one: "is not a host name without port",
    several: "are not host names without port",
    example: "localhost,127.0.0.1,[::1],mcp.example.com",
  },
  "allowed-origins": {
    accepts: (entry: string) => originOf(entry) !== undefined,
    one: "is not an origin (scheme://host[:port], no path)",
    several: "are not origins (scheme://host[:port], no path)",
    example: "http://localhost:5173,https://app.example.com",
  },
} as const;

/** A comma-separated flag of `switchyard mcp` that only the HTTP server reads; each entry checked. */
function readMcpList(
  values: FlagValues,
  flag: keyof typeof mcpLists,
  http: number | undefined,
): string[] | undefined {
  const text = values[flag] as string | undefined;
  if (text === undefined) return undefined;
  if (http === undefined) {
    throw usageError(
      `--${flag} applies to the HTTP server only: add --http PORT, or leave --${flag} out (over stdio no web page can reach the server).`,
    );
  }
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) {
    throw usageError(`--${flag} needs at least one value, comma-separated; got "${text}".`);
  }
  const { accepts, one, several, example } = mcpLists[flag];
  const wrong = entries.filter((entry) => !accepts(entry));
  if (wrong.length > 0) {
    throw usageError(
      `--${flag}: ${wrong.map((entry) => JSON.stringify(entry)).join(", ")} ${wrong.length > 1 ? several : one}; give them comma-separated (e.g. --${flag} ${example}).`,
    );
  }
  return entries;
}

function readApprove(value: string | undefined, help: boolean): ApprovalMode | undefined {
  if (value === undefined || help) return undefined;
  if (!isApprovalMode(value)) {
    throw usageError(`--approve must be one of ${approvalModes.join(", ")}; got "${value}".`);
  }
  return value;
}

function unknownCommand(name: string) {
  return usageError(
    `Unknown command "${name}"; the commands are ${commandList().replace(/, (?=[^,]+$)/, " and ")} (see switchyard --help).`,
  );
}

function commandList(): string {
  return commandSpecs.map((spec) => spec.name).join(", ");
}
