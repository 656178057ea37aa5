import { randomBytes } from "node:crypto";
import type { ApprovalAuditRecord } from "../../agent/approval/approval-audit-record.js";
import type { Approver } from "../../agent/approver.js";
import { formatDuration } from "../../approvers/messaging/approval-refusal.js";
import { createMcpServer, defaultElicitationTimeoutMs } from "../../mcp/create-mcp-server.js";
import {
  type McpHttpEndpoint,
  minimumMcpTokenLength,
  type ServeMcpOverHttpOptions,
  serveMcpOverHttp,
} from "../../mcp/serve-mcp-over-http.js";
import { serveMcpOverStdio } from "../../mcp/serve-mcp-over-stdio.js";
import type { AnswerMode } from "../../simulators/messaging/answer-mode.js";
import {
  type TerminalAnswerer,
  terminalAnswerer,
} from "../../simulators/messaging/terminal-answerer.js";
import { docsTools } from "../../tools/docs/docs-tools.js";
import { messagingTools } from "../../tools/messaging/messaging-tools.js";
import { orderTools } from "../../tools/orders/order-tools.js";
import type { AnyTool } from "../../tools/tool.js";
import {
  type ApprovalMode,
  checkSimulatedApprovals,
  simulatedApprovalMode,
} from "../approval-mode.js";
import { askSimulatorLink } from "../ask-simulator-link.js";
import type { CliIo } from "../cli-io.js";
import { CommandError, usageError } from "../command-error.js";
import { findCommandSpec, mcpToolSetNames } from "../command-specs.js";
import { createRunLogger } from "../create-run-logger.js";
import type { ExampleServices } from "../example-definition.js";
import { exitCodes } from "../exit-codes.js";
import { commandHelp } from "../help-text.js";
import { localUserName } from "../local-user-name.js";
import { openApproverDirectory } from "../open-approver-directory.js";
import { openAuditLog } from "../open-state-directory.js";
import type { McpArguments } from "../parse-arguments.js";
import { readPackageVersion } from "../read-package-version.js";
import { readServiceSettings } from "../read-service-settings.js";
import { type ResolvedServices, resolveServices } from "../resolve-services.js";
import { terminalAnswers } from "../terminal-answers.js";

/** The environment variable holding the bearer token of `switchyard mcp --http`. */
export const mcpTokenVariable = "SWITCHYARD_MCP_TOKEN";

const toolSets = {
  orders: (services: ExampleServices) => orderTools(services.orders),
  docs: (services: ExampleServices) => docsTools(services.docs),
  messaging: (services: ExampleServices) => messagingTools(services.messaging),
} satisfies Record<(typeof mcpToolSetNames)[number], (services: ExampleServices) => AnyTool[]>;

/**
 * `switchyard mcp`: serves the order, docs and messaging tools to an MCP
 * host, over stdio (stdout carries MCP and nothing else; everything else
 * goes to stderr) or with `--http PORT` over Streamable HTTP on 127.0.0.1,
 * each request carrying the bearer token from `SWITCHYARD_MCP_TOKEN` (or
 * one generated and printed to stderr). Services come from the environment
 * as for `switchyard run`, simulators otherwise; a gated call waits for the
 * person asked through the messaging service. Runs until the host closes
 * stdin (stdio), or until `untilStopped` resolves (Ctrl-C, SIGTERM).
 */
export async function mcpCommand(
  args: McpArguments,
  io: CliIo,
  untilStopped: () => Promise<string>,
): Promise<number> {
  if (args.help) {
    io.stdout.write(commandHelp(findCommandSpec("mcp")!, []));
    return exitCodes.completed;
  }
  const overHttp = args.http !== undefined;
  const settings = readServiceSettings(io.env);
  const given = overHttp ? readMcpToken(io.env) : undefined;
  for (const note of settings.notes) io.stderr.write(`note: ${note}\n`);
  const elicit = args.approve === "elicit";
  // With elicit the host's user answers; the messaging simulator, never asked, denies.
  const mode = elicit
    ? "deny"
    : approvalMode(
        args.approve as ApprovalMode | undefined,
        args,
        io,
        settings.messaging !== undefined,
      );
  checkSimulatedApprovals(mode, settings);
  const approverDirectory = await openApproverDirectory(args.approverDirectory, io.env);
  // The host runs this command as its own user: a call over MCP is theirs, and so is the elicitation's answer.
  const hostUser = args.hostUser ?? (approverDirectory !== undefined ? localUserName() : undefined);
  // Answers typed here (--approve ask over HTTP) are the local user's.
  const atTerminal =
    approverDirectory !== undefined && mode === "ask"
      ? terminalAnswers(localUserName())
      : undefined;
  let answerer: TerminalAnswerer | undefined;
  let resolved: ResolvedServices | undefined;
  let endpoint: McpHttpEndpoint | undefined;
  let auditLog: ReturnType<typeof openAuditLog> | undefined;
  const stopped = untilStopped();
  try {
    if (mode === "ask") answerer = terminalAnswerer({ input: io.stdin, output: io.stderr });
    // In the browser the person answers on the simulator's inbox page: the simulator itself never does.
    const answer: AnswerMode = answerer
      ? (atTerminal?.answerer(answerer) ?? answerer)
      : mode === "browser"
        ? "never"
        : (mode as Exclude<ApprovalMode, "ask" | "browser">);
    const logger = createRunLogger(io.env, io.stderr);
    // The same trail as the runs of switchyard run, resume and worker (switchyard audit reads it).
    auditLog = openAuditLog(io.env);
    resolved = await resolveServices({ settings, scenario: "auto", answer, logger, auditLog });
    const services = resolved.services;
    const sets = args.tools ?? mcpToolSetNames;
    const tools = sets.flatMap((set): AnyTool[] => toolSets[set](services));
    // With a directory, the simulator's one link is asked, not the links the directory names.
    const approverOnSimulator = (approver: Approver): Approver => {
      const asked =
        approverDirectory !== undefined && !settings.messaging
          ? askSimulatorLink(approver)
          : approver;
      return atTerminal?.approver(asked) ?? asked;
    };
    const createServer = () =>
      createMcpServer({
        tools,
        approver: elicit ? "elicitation" : approverOnSimulator(services.approver),
        ...(hostUser !== undefined ? { hostUser } : {}),
        ...(approverDirectory !== undefined ? { approverDirectory } : {}),
        ...(args.elicitationTimeoutMs !== undefined
          ? { elicitationTimeoutMs: args.elicitationTimeoutMs }
          : {}),
        name: "switchyard",
        version: readPackageVersion(),
        logger,
        auditLog,
        // One line per decision on stderr, naming the run its audit record is under.
        onApprovalDecided: (record) => {
          io.stderr.write(`${decisionLine(record)}\n`);
        },
      });
    const origins = (["orders", "docs", "messaging"] as const)
      .map((service) => {
        const origin = resolved!.origins[service];
        return `${service} ${origin.simulated ? "simulator" : origin.url}`;
      })
      .join(", ");
    const approvals = elicit
      ? `asked of the MCP host's user, through the host (elicitation, --approve elicit), who has ${formatDuration(args.elicitationTimeoutMs ?? defaultElicitationTimeoutMs)} to answer each`
      : settings.messaging
        ? `the person behind SWITCHYARD_APPROVER_LINK ${services.approverLinkId}`
        : mode === "ask"
          ? "asked at this terminal (through the messaging simulator)"
          : mode === "browser"
            ? `answered in a browser, on the messaging simulator's inbox page ${resolved.simulators.messaging?.inboxUrl ?? ""} (--approve browser)`
            : `always ${mode === "approve" ? "approved" : "denied"} by the messaging simulator (--approve ${mode})`;
    const header = [
      `switchyard mcp: ${tools.length} tools (${sets.join(", ")}); services: ${origins}.`,
      `Approvals: ${approvals}.`,
      ...(approverDirectory !== undefined
        ? [
            `Who may approve: the people of the approver directory, as each rule allows; each call is started by the MCP host's user ${hostUser}.`,
          ]
        : []),
      `Each approval decision is appended to the audit log ${auditLog.where}, and named here with its run (each call is a run of its own).`,
    ];
    if (!overHttp) {
      io.stderr.write(`${[...header, "Serving MCP over stdio."].join("\n")}\n`);
      const connection = await serveMcpOverStdio(createServer(), {
        stdin: io.stdin,
        stdout: io.stdout,
      });
      await Promise.race([connection.closed, stopped]);
      await connection.close();
      return exitCodes.completed;
    }
    const token = given ?? randomBytes(32).toString("base64url");
    endpoint = await listen({
      createServer,
      token,
      port: args.http!,
      allowedOrigins: args.allowedOrigins,
      allowedHosts: args.allowedHosts,
    });
    io.stderr.write(
      `${[
        ...header,
        `Serving MCP over Streamable HTTP at ${endpoint.url}`,
        given
          ? `Each request must send Authorization: Bearer <the token in ${mcpTokenVariable}>.`
          : `Each request must send Authorization: Bearer ${token}\n(generated for this run; set ${mcpTokenVariable} to choose it).`,
        "Ctrl-C or SIGTERM stops it.",
      ].join("\n")}\n`,
    );
    const signal = await stopped;
    io.stderr.write(`${signal}: MCP server stopped.\n`);
    return exitCodes.completed;
  } finally {
    answerer?.close();
    await endpoint?.close();
    await resolved?.close();
    if (auditLog && "close" in auditLog) await auditLog.close().catch(() => {});
  }
}

/** What stderr says of a decision: its outcome, the tool, and how to read its audit record. */
function decisionLine(record: ApprovalAuditRecord): string {
  const code = record.code === undefined ? "" : ` (${record.code})`;
  return `Approval ${record.outcome}${code} for ${record.action}: switchyard audit show ${record.runId ?? ""}`;
}

/** `SWITCHYARD_MCP_TOKEN`, or `undefined` when unset or blank; a short one is a usage error naming it. */
function readMcpToken(env: CliIo["env"]): string | undefined {
  const token = env[mcpTokenVariable]?.trim();
  if (!token) return undefined;
  if (token.length < minimumMcpTokenLength) {
    throw usageError(
      `${mcpTokenVariable} holds ${token.length} characters; it needs at least ${minimumMcpTokenLength}, or it can be guessed: set it to random text (openssl rand -base64 32), or unset it to have one generated.`,
    );
  }
  return token;
}

function approvalMode(
  approve: ApprovalMode | undefined,
  args: McpArguments,
  io: CliIo,
  realMessaging: boolean,
): ApprovalMode {
  if (realMessaging) {
    if (approve !== undefined && approve !== "ask") {
      throw usageError(
        `--approve ${approve} only applies to the messaging simulator: with SWITCHYARD_MESSAGING_URL set, the person behind SWITCHYARD_APPROVER_LINK answers each request. Leave --approve out.`,
      );
    }
    // No simulator is started: the person behind the link answers.
    return "deny";
  }
  if (args.http !== undefined) return simulatedApprovalMode(approve, io);
  if (approve === "ask") {
    throw usageError(
      "--approve ask needs this terminal's input, which carries MCP messages over stdio: answer in a browser (--approve browser), use --approve approve|deny or elicit (the MCP host asks its user), serve over HTTP (--http PORT) to answer here, or set SWITCHYARD_MESSAGING_URL so a person answers through the messaging service.",
    );
  }
  // Stdin is the MCP transport: nobody can answer at this terminal.
  return approve ?? "deny";
}

async function listen(
  options: ServeMcpOverHttpOptions & { port: number },
): Promise<McpHttpEndpoint> {
  const { port } = options;
  try {
    return await serveMcpOverHttp(options);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "EADDRINUSE" || code === "EACCES") {
      throw new CommandError(
        `Could not listen on port ${port} (${code}): choose another --http port, or 0 for a free one.`,
        exitCodes.notCompleted,
        { cause: error },
      );
    }
    throw error;
  }
}
