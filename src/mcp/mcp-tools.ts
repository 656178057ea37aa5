import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import { positiveInteger } from "../agent/agent-options.js";
import type { Approver } from "../agent/approver.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { compileJsonSchema, type JsonSchemaCheck } from "../tools/compile-json-schema.js";
import type { JsonSchema } from "../tools/json-schema.js";
import type { ActionDescription, AnyTool, NeedsApproval, Tool } from "../tools/tool.js";
import { findToolNameProblem } from "../tools/tool-name.js";
import { needsApprovalRule } from "../tools/tool-set-options.js";
import {
  answerElicitations,
  callInProgress,
  type McpElicitationHandler,
} from "./answer-elicitations.js";
import { mcpSdk } from "./mcp-sdk.js";

type ResultSchemas = Pick<
  ReturnType<typeof mcpSdk.types>,
  "ListToolsResultSchema" | "CallToolResultSchema"
>;

/**
 * What a tool from an MCP server runs with, and what its approval's
 * fingerprint covers: the server, the tool's name on that server and the
 * arguments, so an approval given for one server's tool never lets another
 * server's run.
 */
export interface McpToolCall {
  /** The server, as `McpToolsOptions.serverName` names it. */
  server: string;
  /** What the server calls itself (`name@version`), as it reported on connecting. */
  implementation: string;
  /** The tool's name on the server (the agent's may carry a prefix). */
  tool: string;
  /** The arguments, checked against the tool's `inputSchema`. */
  arguments: Record<string, unknown>;
}

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /**
   * The server's name in approvals, fingerprints and errors. Choose it: the
   * name the server reports is its own claim.
   * @default the name the server reported on connecting
   */
  serverName?: string | undefined;
  /**
   * Believe the server's annotations: a tool marked `readOnlyHint` (and not
   * `destructiveHint`) then runs without asking, and one marked
   * `destructiveHint: false` is described as undoable. Untrusted, every
   * tool asks first and is described as not undoable.
   * @default false
   */
  trusted?: boolean | undefined;
  /** Put before each tool's name for the model, e.g. `"files_"`. @default "" */
  prefix?: string | undefined;
  /** Only these tools (by their names on the server). @default every tool the server lists */
  include?: readonly string[] | undefined;
  /**
   * Whether a tool asks first, by its name on the server: `true`, `false` or
   * a function of the call; overrides the default (above). Each becomes a
   * rule of the agent's approval policy, named `mcpTools: needsApproval` in
   * the decisions it makes (so a call it lets run without asking is
   * recorded); the policy's own rules win over it.
   */
  needsApproval?: Readonly<Record<string, NeedsApproval<McpToolCall>>> | undefined;
  /**
   * Keywords of the servers' input schemas that only annotate (e.g.
   * `"x-order"`), accepted besides the standard ones. Any other keyword the
   * validator does not know makes the tool unusable (fail closed).
   * @default []
   */
  annotationKeywords?: readonly string[] | undefined;
  /** How long one call may take, in milliseconds, before it fails. @default 60000 */
  timeoutMs?: number | undefined;
  /**
   * Answers the server's elicitation requests (`elicitation/create`, the
   * server asking the user something mid-call) through a person, e.g. your
   * application's own form; never the model. Needs a client that declares
   * the `elicitation` capability. Without it, the agent's approver is asked
   * (see `approver`); with neither, every elicitation request is declined
   * and the decline logged with its reason.
   *
   * @example
   * onElicitation: async (request) => (await askUser(request.message))
   *   ? { action: "accept", content: { confirm: true } }
   *   : { action: "decline" }
   */
  onElicitation?: McpElicitationHandler | undefined;
  /**
   * Asked about the server's elicitation requests when there is no
   * `onElicitation`, instead of the approver of the agent whose call is in
   * progress (which is asked without this option). An approver can only
   * say yes or no, so it is asked about a form whose every required field
   * has a default (approve accepts with the defaults; anything else
   * declines), and every other elicitation request is declined.
   * @default the approver of the agent whose call to the server is in progress
   */
  approver?: Approver | undefined;
  /**
   * Most pages of the server's tool list read (`tools/list` with each
   * `nextCursor`); a server that offers more makes `mcpTools` throw.
   * @default 100
   */
  maxPages?: number | undefined;
  /**
   * Most tools the server may list, across its pages, before `include`
   * picks; a server that lists more makes `mcpTools` throw.
   * @default 1000
   */
  maxTools?: number | undefined;
}

/**
 * Turns the tools of a connected MCP client into tools for an `Agent`. Each
 * call's arguments are checked against the tool's `inputSchema` by
 * `compileJsonSchema` (Ajv, strict) before anything is sent: the model gets
 * the validator's words back. Every tool whose server does not mark it
 * read-only asks a person first (and, unless the server is `trusted`, every
 * tool does). The approval binds to the server, the tool and the arguments
 * (`{ server, implementation, tool, arguments }`, what a `needsApproval` function reads). A result's `structuredContent` reaches the model as
 * JSON; otherwise text content as its text, and other content as the SDK
 * gives it. A result marked `isError` fails the call with its text.
 *
 * The server's schemas are its own: their patterns are compiled with a
 * linear-time engine (`compileJsonSchema`'s `untrusted`), and a structured
 * result is not checked against the tool's `outputSchema` (the SDK's
 * `callTool` would, with the server's patterns in JavaScript's engine), so
 * no answer of the server can stall the agent.
 *
 * Reads the server's tool list once, now: at most `maxPages` pages and
 * `maxTools` tools, each page's cursor a new one.
 *
 * A server that asks the user something mid-call (elicitation) is answered
 * by a person, never by the model: `onElicitation`, else the `approver`
 * option, else the approver of the agent whose call to the server is in
 * progress (the one it was given; nothing else to wire). With none, it is
 * declined, and the agent's logger says why.
 *
 * @throws ConfigurationError naming every tool whose name or schema cannot
 * be used (pick the others with `include`), an unknown name in `include` or
 * `needsApproval`, a `needsApproval` value that is not `true`, `false` or a
 * function, or a name two tools would share; or a tool list that
 * repeats a cursor or passes `maxPages` or `maxTools`.
 *
 * @example
 * const client = new Client({ name: "my-agent", version: "1.0.0" });
 * await client.connect(new StdioClientTransport({ command: "npx", args: ["-y", "some-mcp-server"] }));
 * const agent = new Agent({
 *   model,
 *   approver,
 *   tools: await mcpTools(client, { serverName: "files", prefix: "files_" }),
 * });
 */
export async function mcpTools(client: Client, options: McpToolsOptions = {}): Promise<AnyTool[]> {
  if (typeof client?.listTools !== "function" || typeof client?.callTool !== "function") {
    throw new ConfigurationError(
      "mcpTools needs a connected MCP Client (from @modelcontextprotocol/sdk/client/index.js).",
    );
  }
  const reported = client.getServerVersion();
  const implementation = reported ? `${reported.name}@${reported.version}` : "unknown";
  const serverName = options.serverName ?? reported?.name ?? "mcp";
  const limits: string[] = [];
  const maxPages = positiveInteger(options.maxPages, 100, "maxPages", limits);
  const maxTools = positiveInteger(options.maxTools, 1000, "maxTools", limits);
  if (limits.length > 0) throw new ConfigurationError(limits.map((line) => `mcpTools: ${line}`));
  const schemas: ResultSchemas = mcpSdk.types("mcpTools");
  const listed = await listAllTools(client, serverName, schemas, { maxPages, maxTools });
  const problems: string[] = [];
  const listedNames = new Set(listed.map((tool) => tool.name));
  for (const name of [...(options.include ?? []), ...Object.keys(options.needsApproval ?? {})]) {
    if (!listedNames.has(name)) {
      problems.push(
        `MCP server "${serverName}" has no tool "${name}"; its tools are ${[...listedNames].join(", ")}.`,
      );
    }
  }
  for (const [name, value] of Object.entries(options.needsApproval ?? {})) {
    if (value !== undefined && typeof value !== "boolean" && typeof value !== "function") {
      problems.push(
        `MCP server "${serverName}": needsApproval.${name} must be true, false or a function of the call, got ${value === null ? "null" : typeof value}.`,
      );
    }
  }
  const chosen = options.include
    ? listed.filter((tool) => options.include?.includes(tool.name))
    : listed;
  const tools: AnyTool[] = [];
  const names = new Map<string, string>();
  for (const definition of chosen) {
    const name = `${options.prefix ?? ""}${definition.name}`;
    const subject = `MCP server "${serverName}", tool "${definition.name}"`;
    const nameProblem = findToolNameProblem(name);
    if (nameProblem) {
      problems.push(`${subject}: ${nameProblem} Leave it out with include, or shorten prefix.`);
      continue;
    }
    if (names.has(name)) {
      problems.push(`${subject}: the name "${name}" is taken by "${names.get(name)}".`);
      continue;
    }
    names.set(name, definition.name);
    try {
      tools.push(
        mcpTool(client, definition, name, {
          serverName,
          implementation,
          trusted: options.trusted === true,
          needsApproval: ownValue(options.needsApproval, definition.name),
          annotationKeywords: options.annotationKeywords,
          timeoutMs: options.timeoutMs,
          schemas,
        }),
      );
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      problems.push(
        ...error.problems.map(
          (problem) =>
            `${problem} Leave the tool out with include, or declare annotation-only keywords in annotationKeywords.`,
        ),
      );
    }
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  // Last, so that a call that throws above leaves the client as it was.
  answerElicitations(client, {
    serverName,
    onElicitation: options.onElicitation,
    approver: options.approver,
  });
  return tools;
}

/** `map[name]` when it is the map's own, never a property every object inherits (`hasOwnProperty`). */
function ownValue<Value>(
  map: Readonly<Record<string, Value>> | undefined,
  name: string,
): Value | undefined {
  return map !== undefined && Object.hasOwn(map, name) ? map[name] : undefined;
}

/**
 * Every page of `tools/list`, within the limits. Asked with `request`, not
 * `listTools`, which would compile each `outputSchema` with the server's
 * patterns for `callTool` to check.
 */
async function listAllTools(
  client: Client,
  serverName: string,
  schemas: ResultSchemas,
  limits: { maxPages: number; maxTools: number },
): Promise<McpToolDefinition[]> {
  const tools: McpToolDefinition[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 1; ; pages += 1) {
    const page = await client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      schemas.ListToolsResultSchema,
    );
    tools.push(...page.tools);
    if (tools.length > limits.maxTools) {
      throw new ConfigurationError(
        `MCP server "${serverName}" lists more than ${limits.maxTools} tools (maxTools); raise maxTools if it really offers that many.`,
      );
    }
    cursor = page.nextCursor;
    if (cursor === undefined) return tools;
    // The cursor is the server's text: named by its page, never quoted.
    if (seen.has(cursor)) {
      throw new ConfigurationError(
        `MCP server "${serverName}" sent, with page ${pages} of its tools, a cursor it had sent before, so its list would never end; the server's pagination is broken.`,
      );
    }
    if (pages >= limits.maxPages) {
      throw new ConfigurationError(
        `MCP server "${serverName}" has more than ${limits.maxPages} pages of tools (maxPages); raise maxPages if it really has that many.`,
      );
    }
    seen.add(cursor);
  }
}

interface McpToolSettings {
  serverName: string;
  implementation: string;
  trusted: boolean;
  needsApproval: NeedsApproval<McpToolCall> | undefined;
  annotationKeywords: readonly string[] | undefined;
  timeoutMs: number | undefined;
  schemas: ResultSchemas;
}

function mcpTool(
  client: Client,
  definition: McpToolDefinition,
  name: string,
  settings: McpToolSettings,
): AnyTool {
  const subject = `MCP server "${settings.serverName}", tool "${definition.name}"`;
  const inputSchema = definition.inputSchema as Record<string, unknown>;
  const check: JsonSchemaCheck = compileJsonSchema(inputSchema, {
    subject,
    annotationKeywords: settings.annotationKeywords,
    untrusted: true,
  });
  const { $schema: _dialect, ...parameters } = structuredClone(inputSchema);
  const annotations = settings.trusted ? (definition.annotations ?? {}) : {};
  const readOnly = annotations.readOnlyHint === true && annotations.destructiveHint !== true;
  const irreversible = !(readOnly || annotations.destructiveHint === false);
  // Names and arguments come from the server and the model: details, which the gate shows quoted.
  const describeAction = (call: McpToolCall): ActionDescription => ({
    summary: "Run a tool of an MCP server with the arguments below",
    details: [
      { label: "MCP server", value: call.server },
      { label: "the server reports itself as", value: call.implementation },
      { label: "tool", value: call.tool },
      { label: "arguments (JSON)", text: JSON.stringify(call.arguments, null, 2) },
    ],
    irreversible,
  });
  const tool: Tool<McpToolCall, unknown> = {
    name,
    description:
      definition.description ??
      definition.title ??
      `The tool "${definition.name}" of ${settings.serverName}.`,
    parameters: Object.freeze(parameters) as JsonSchema,
    checkArguments(args) {
      const issues = check(args);
      if (issues.length > 0) return { success: false, issues };
      return {
        success: true,
        data: {
          server: settings.serverName,
          implementation: settings.implementation,
          tool: definition.name,
          arguments: args as Record<string, unknown>,
        },
      };
    },
    async execute(call, context) {
      // What the server asks meanwhile goes to this call's agent's approver.
      const done = callInProgress(client, context);
      try {
        // Not callTool: it checks structuredContent against the server's outputSchema, patterns and all.
        const result = (await client.request(
          { method: "tools/call", params: { name: call.tool, arguments: call.arguments } },
          settings.schemas.CallToolResultSchema,
          {
            signal: context.signal,
            ...(settings.timeoutMs !== undefined ? { timeout: settings.timeoutMs } : {}),
          },
        )) as CallToolResult;
        return toolResultForModel(result, subject);
      } finally {
        done();
      }
    },
    needsApproval: !readOnly,
    readOnly,
    destructive: irreversible,
    describeAction,
  };
  const rule =
    settings.needsApproval === undefined
      ? undefined
      : needsApprovalRule("mcpTools: needsApproval", settings.needsApproval, !readOnly);
  if (rule) return Object.freeze({ ...tool, approvalRules: Object.freeze([rule]) });
  return Object.freeze(tool);
}

/**
 * `structuredContent` as it is (sent as JSON); text content as its text;
 * other content as the SDK gives it. An `isError` result throws its text.
 */
function toolResultForModel(result: CallToolResult, subject: string): unknown {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const length = resultLength(result, blocks);
  if (length > maximumResultLength) {
    throw new Error(
      `${subject} answered with a result of ${length} characters, more than the ${maximumResultLength} a tool result may have; it was not read. Ask the tool for less (a page, a filter) or have the server return a shorter result.`,
    );
  }
  const allText = blocks.every((block) => block.type === "text");
  const text = allText ? blocks.map((block) => (block as { text: string }).text).join("\n") : "";
  if (result.isError === true) {
    throw new Error(
      `${subject} answered with an error: ${allText ? text : JSON.stringify(blocks)}`,
    );
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  return allText ? text : blocks;
}

/**
 * The longest tool result read, in characters (its text, or its structured
 * content or other blocks as JSON): a longer one fails the call before
 * anything reads it. More than any model's context holds.
 */
const maximumResultLength = 1_000_000;

/** How long a result is as read: its text blocks, or its structured content and blocks as JSON. */
function resultLength(result: CallToolResult, blocks: CallToolResult["content"]): number {
  let length = 0;
  for (const block of blocks) {
    length += block.type === "text" ? block.text.length : JSON.stringify(block).length;
  }
  if (result.structuredContent !== undefined) {
    length += JSON.stringify(result.structuredContent).length;
  }
  return length;
}
