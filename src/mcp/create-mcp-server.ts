import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type {
  CallToolResult,
  Tool as McpToolDefinition,
  ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import type { AgentEvent } from "../agent/agent-events.js";
import { checkAuditOptions, collectTools, positiveInteger } from "../agent/agent-options.js";
import type {
  ApprovalAuditLog,
  ApprovalAuditRecord,
} from "../agent/approval/approval-audit-record.js";
import { type ApprovalPolicy, checkApprovalPolicy } from "../agent/approval/approval-policy.js";
import type { ApproverDirectory } from "../agent/approval/approver-directory.js";
import { checkApproverDirectory } from "../agent/approval/approver-directory.js";
import { redactingApprover } from "../agent/approval/redacting-approver.js";
import { resolveRunStarter } from "../agent/approval/run-starter.js";
import type { ApprovalContext, Approver } from "../agent/approver.js";
import { InMemoryRunStore } from "../agent/durable/in-memory-run-store.js";
import { newRunId } from "../agent/durable/run-id.js";
import { RunJournal } from "../agent/durable/run-journal.js";
import { type RunStore, runStoreMethods } from "../agent/durable/run-store.js";
import type { ModelToolCall } from "../agent/model-message.js";
import type { ToolCallRecord } from "../agent/run-result.js";
import { runToolCall } from "../agent/run-tool-call.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { componentLogger, type Logger } from "../internal/logger.js";
import { missingMethods } from "../internal/missing-methods.js";
import { SecretRegistry, secretsOf } from "../internal/redact.js";
import { escapeUntrustedText } from "../internal/untrusted-text.js";
import type { AnyTool } from "../tools/tool.js";
import { maxTimerMs } from "../tools/tool-timeout.js";
import { elicitationApprover } from "./elicitation-approver.js";
import { findHostUserProblem, hostUserOf, type McpHostUser } from "./mcp-host-user.js";
import { mcpSdk } from "./mcp-sdk.js";
import { toolAnnotations } from "./tool-annotations.js";

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** The tools to serve, e.g. `orderTools(orders)`; names must be unique. */
  tools: readonly AnyTool[];
  /**
   * Asks a person before a gated tool runs, as in an agent (e.g. a
   * `MessagingApprover`). The call's answer waits for theirs. Without one,
   * every gated call is refused. Nothing the MCP client sends counts as an
   * approval, except with `"elicitation"`: then the host's user is asked
   * through the connected client (`elicitation/create`, form mode), shown
   * the whole call, and only their explicit approve lets it run, once. A
   * client that did not declare the `elicitation` capability cannot be
   * asked, and its gated calls are refused saying so. Needs a connection
   * that stays open (stdio, or Streamable HTTP with sessions such as
   * `serveMcpOverHttp`): a stateless HTTP server cannot carry the question back.
   */
  approver: Approver | "elicitation" | undefined;
  /**
   * Who the MCP host's user is: the person every call over MCP comes from
   * (it is the host asking), and who answers its elicitation. A name (over
   * stdio the host runs as one user), or a function naming the person behind
   * each request from what the SDK knows of it (`authInfo`, when your HTTP
   * server checked the request's token). Each call's run is started by
   * `{ channel: "mcp", id: hostUser }`, and an elicitation's answer carries
   * the same `answeredBy`; with `approverDirectory`, the person whose
   * `identities.mcp` holds it.
   * @default nobody named: without a directory, answers count as before;
   * with one, elicitation refuses every gated call (`approver_not_allowed`)
   */
  hostUser?: McpHostUser | undefined;
  /**
   * Who may approve, as an agent's `approverDirectory`: the people, their
   * roles and how each channel recognises them. With one, an answer counts
   * only from a person the asking rule allows (its `roles`, `required`
   * distinct people, and not the host's user who started the call unless
   * the rule has `allowSelfApproval`), and every decision record names them.
   * @default none: answers count as the approver gives them
   */
  approverDirectory?: ApproverDirectory | undefined;
  /**
   * With `approver: "elicitation"`, how long the host's user has to answer,
   * in milliseconds; then the call does not run (`expired`). The host's
   * own request timeout must be longer, or reset on progress (see
   * `progressIntervalMs`): otherwise the host gives up first.
   * @default 600000 (10 minutes)
   */
  elicitationTimeoutMs?: number | undefined;
  /**
   * How often, in milliseconds, a host that sent a progress token with its
   * call hears that a person is still being asked (`notifications/progress`),
   * so a host that resets its request timeout on progress (the SDK client's
   * `resetTimeoutOnProgress`) keeps waiting. Keep it below the host's timeout.
   * @default 15000
   */
  progressIntervalMs?: number | undefined;
  /**
   * Where the audit record of every approval decision over MCP (a person's
   * answer, a policy rule, an expiry, a refusal by the gate) is appended,
   * as an agent's `auditLog`, e.g. `new JsonlAuditLog({ path: "audit.jsonl" })`.
   * An approved call runs only once its record is appended. Each call is a
   * run of its own: its record's `runId` is logged with the decision.
   */
  auditLog?: ApprovalAuditLog | undefined;
  /**
   * Called with the audit record of every approval decision over MCP, as an
   * agent's `onApprovalDecided`. What it throws is logged; the decision stands.
   */
  onApprovalDecided?: ((record: ApprovalAuditRecord) => void | Promise<void>) | undefined;
  /**
   * Decides, before anyone is asked, whether a call runs, is refused or asks
   * the approver, as an agent's `approvalPolicy` does.
   * @default { rules: [] } (the tools' defaults decide)
   */
  approvalPolicy?: ApprovalPolicy | undefined;
  /**
   * Where each call is kept as a run of one call while it is in progress,
   * its approval spent, and where the approver binds each interaction to the
   * question it holds (`RunStore.bindInteraction`), so an answer counts for
   * that question only. Share one store (e.g. a `PostgresRunStore`) with the
   * agents and servers of other processes that use the same approver link,
   * so an interaction answers one question across them all.
   * @default a store in the server's own memory
   */
  runStore?: RunStore | undefined;
  /** The server's name, as MCP hosts show it. @default "switchyard" */
  name?: string | undefined;
  /** The server's version. @default "0.0.0" */
  version?: string | undefined;
  /** Told to the host's model when it connects: how to use these tools. */
  instructions?: string | undefined;
  /** How long one tool may run once approved, in milliseconds. @default 60000 */
  toolTimeoutMs?: number | undefined;
  /**
   * Secret values never to let through, besides those the tools' and the
   * approver's clients register themselves: removed from results, errors and
   * logs, as in an agent.
   */
  secrets?: readonly string[] | undefined;
  /** Longest tool result or error text sent to the host, in characters (a longer one is cut, saying so). @default 32000 */
  maxToolResultChars?: number | undefined;
  /** Receives approval audit lines and tool logs. Never stdout in stdio mode. @default silent */
  logger?: Logger | undefined;
}

/** How long the host's user has to answer an elicitation, unless `elicitationTimeoutMs` says otherwise: 10 minutes. */
export const defaultElicitationTimeoutMs = 600_000;

/**
 * An MCP server (the SDK's `Server`) offering the tools, to connect to any
 * transport: `server.connect(new StdioServerTransport())`, or see
 * `serveMcpOverHttp`. Each tool is listed with its JSON Schema and its
 * annotations (`toolAnnotations`). A call runs through the agent's own
 * pipeline (`runToolCall`): arguments checked against the tool's schema, a
 * gated call put to the approver and run only when the person approved
 * exactly these arguments, the result redacted of every secret and cut to
 * `maxToolResultChars`. A refusal, invalid arguments or a failure is a tool error
 * (`isError`) whose text says why; an object result also comes as
 * `structuredContent`. A host that sends a progress token hears when a
 * person is asked, and every `progressIntervalMs` while they have not
 * answered. With `"elicitation"`, the question travels with the call it is
 * about (on its response stream over Streamable HTTP), so a host that
 * never opens the optional GET stream is still asked. Every approval
 * decision goes to `auditLog` and `onApprovalDecided`.
 *
 * @throws ConfigurationError listing every problem with the tools or options.
 *
 * @example
 * const server = createMcpServer({ tools: orderTools(orders), approver });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(options: McpServerOptions): Server {
  const problems: string[] = [];
  const tools = collectTools(options.tools, problems);
  const { approverDirectory } = options;
  const approvalPolicy = checkApprovalPolicy(
    options.approvalPolicy,
    tools,
    problems,
    approverDirectory !== undefined,
  );
  checkApproverDirectory(approverDirectory, problems);
  const toolTimeoutMs = positiveInteger(options.toolTimeoutMs, 60_000, "toolTimeoutMs", problems);
  const maxToolResultChars = positiveInteger(
    options.maxToolResultChars,
    32_000,
    "maxToolResultChars",
    problems,
  );
  const elicitationTimeoutMs = positiveInteger(
    options.elicitationTimeoutMs,
    defaultElicitationTimeoutMs,
    "elicitationTimeoutMs",
    problems,
  );
  const progressIntervalMs = positiveInteger(
    options.progressIntervalMs,
    15_000,
    "progressIntervalMs",
    problems,
  );
  for (const [name, value] of Object.entries({ elicitationTimeoutMs, progressIntervalMs })) {
    // A longer Node timer fires at once: the person would have no time at all.
    if (value > maxTimerMs) problems.push(`${name} must be at most ${maxTimerMs} (about 24 days).`);
  }
  checkAuditOptions(options, problems);
  const hostUserProblem = findHostUserProblem(options.hostUser);
  if (hostUserProblem !== undefined) problems.push(hostUserProblem);
  if (
    options.approver !== undefined &&
    options.approver !== "elicitation" &&
    (typeof options.approver?.ask !== "function" || typeof options.approver.read !== "function")
  ) {
    problems.push(
      'approver must have ask() and read() methods (an Approver, e.g. a MessagingApprover), or be "elicitation" to ask the MCP host\'s user.',
    );
  }
  const given = options.secrets ?? [];
  if (!Array.isArray(given) || given.some((value) => typeof value !== "string")) {
    problems.push("secrets must be an array of strings.");
  }
  const missing =
    options.runStore === undefined ? [] : missingMethods(options.runStore, runStoreMethods);
  if (missing.length > 0) {
    problems.push(
      `runStore must implement every RunStore method (e.g. a FileRunStore); it lacks ${missing.map((method) => `${method}()`).join(", ")}.`,
    );
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  const { Server } = mcpSdk.server("createMcpServer");
  const { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } =
    mcpSdk.types("createMcpServer");
  const givenApprover = options.approver;
  const secrets = new SecretRegistry().add(...given).include(secretsOf(givenApprover));
  for (const tool of tools.values()) secrets.include(secretsOf(tool));
  const logger = componentLogger(options.logger, "mcp");
  const definitions: McpToolDefinition[] = [...tools.values()].map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as McpToolDefinition["inputSchema"],
    annotations: toolAnnotations(tool),
  }));

  const server = new Server(
    { name: options.name ?? "switchyard", version: options.version ?? "0.0.0" },
    {
      capabilities: { tools: {} },
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    },
  );
  // An approver of the application's own is shown each action with the registered
  // secrets removed, as an agent shows it (the fingerprint stays the real call's).
  const ownApprover =
    givenApprover === undefined || givenApprover === "elicitation"
      ? undefined
      : redactingApprover(givenApprover, secrets);
  const audit = {
    log: options.auditLog,
    onApprovalDecided: options.onApprovalDecided,
    secrets,
  };
  // Each call is a run of one call, in the server's own memory unless a store
  // is given, as an agent keeps its runs: one approval lets one call run.
  const runStore = options.runStore ?? new InMemoryRunStore();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: definitions }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    if (!tools.has(name)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `There is no tool named "${name}"; the tools are ${[...tools.keys()].join(", ")}.`,
      );
    }
    // The host's user asks for this call, and answers its elicitation.
    const hostUser = await hostUserOf(options.hostUser, extra);
    const progressToken = request.params._meta?.progressToken;
    const progress =
      progressToken === undefined
        ? undefined
        : approvalProgress(secrets, progressIntervalMs, (message, step) =>
            extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken, progress: step, message },
            } satisfies ServerNotification),
          );
    const toolCall: ModelToolCall = {
      id: `mcp-${String(extra.requestId)}`,
      type: "function",
      function: { name, arguments: JSON.stringify(request.params.arguments ?? {}) },
    };
    // The host asks for the call: its user started it, and answers as themselves.
    const startedBy =
      hostUser === undefined ? undefined : ({ channel: "mcp", id: hostUser } as const);
    const journal = new RunJournal({
      runId: newRunId(),
      store: runStore,
      inProcess: true,
      maxSteps: 1,
      messages: [],
      startedBy,
    });
    journal.openStep({ role: "assistant", content: null, tool_calls: [toolCall] });
    // Each decision's log line names the run its audit record is under (switchyard audit show).
    const callLogger = logger.child({ runId: journal.runId });
    // An interaction the approver hands out holds this call's question, ever.
    const bindInteraction: ApprovalContext["bindInteraction"] = (binding) =>
      runStore.bindInteraction({ ...binding, runId: journal.runId });
    // The host's user is asked on the stream of the call the question is about.
    const approver =
      givenApprover === "elicitation"
        ? elicitationApprover(server, {
            secrets,
            timeoutMs: elicitationTimeoutMs,
            relatedRequestId: extra.requestId,
            hostUser,
          })
        : ownApprover;
    try {
      const record = await runToolCall(toolCall, {
        tools,
        approver,
        bindInteraction,
        approverDirectory,
        starter: await resolveRunStarter(approverDirectory, startedBy),
        approvalPolicy,
        onApprovalExpired: "tell-model",
        audit: { ...audit, logger: callLogger },
        signal: extra.signal,
        logger: callLogger,
        toolTimeoutMs,
        toolConcurrency: 1,
        stepNumber: 1,
        emit: (event) => progress?.(event),
        journal,
        suspendOnApproval: false,
        secrets,
        maxToolResultChars,
      });
      return callToolResult(record);
    } finally {
      // The call ended: its run is forgotten, its approval stays spent.
      await runStore.delete(journal.runId).catch(() => {});
      progress?.("end");
    }
  });
  return server;
}

/**
 * What a host reads of a finished call: the text the model of an agent
 * would read (already redacted), and for an object result the same object
 * as `structuredContent`.
 */
function callToolResult(record: ToolCallRecord): CallToolResult {
  const content = [{ type: "text" as const, text: record.content }];
  if (record.status !== "succeeded") return { content, isError: true };
  if (typeof record.result !== "object" || record.result === null) return { content };
  let structured: unknown;
  try {
    structured = JSON.parse(record.content);
  } catch {
    return { content };
  }
  return typeof structured === "object" && structured !== null && !Array.isArray(structured)
    ? { content, structuredContent: structured as Record<string, unknown> }
    : { content };
}

/**
 * Progress notifications while a person is asked: one when the question
 * goes out, then one every `intervalMs` until the answer, so a host that
 * resets its timeout on progress keeps waiting.
 */
function approvalProgress(
  secrets: SecretRegistry,
  intervalMs: number,
  send: (message: string, step: number) => Promise<void>,
): (event: AgentEvent<unknown> | "end") => void {
  let timer: NodeJS.Timeout | undefined;
  let step = 0;
  const notify = (message: string) => {
    step += 1;
    send(message, step).catch(() => {});
  };
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  return (event) => {
    if (event === "end" || event.type === "approval-result") {
      stop();
      return;
    }
    if (event.type !== "approval-request") return;
    const summary = escapeUntrustedText(secrets.redactText(event.action.description.summary));
    notify(`Waiting for a person to approve: ${summary}`);
    timer = setInterval(() => notify("Still waiting for the person's answer."), intervalMs);
    timer.unref();
  };
}
