import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { compileJsonSchema, type JsonSchemaCheck } from "../tools/compile-json-schema.js";
import type { JsonSchema } from "../tools/json-schema.js";
import type { ActionDescription, AnyTool, NeedsApproval, Tool } from "../tools/tool.js";
import { findToolNameProblem } from "../tools/tool-name.js";

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
   * a function of the call; overrides the default (above).
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
}

/**
 * Turns the tools of a connected MCP client into tools for an `Agent`. Each
 * call's arguments are checked against the tool's `inputSchema` by
 * `compileJsonSchema` (Ajv, strict) before anything is sent: the model gets
 * the validator's words back. Every tool whose server does not mark it
 * read-only asks a person first (and, unless the server is `trusted`, every
 * tool does). The approval binds to the server, the tool and the arguments
 * ({@link McpToolCall}). A result's `structuredContent` reaches the model as
 * JSON; otherwise text content as its text, and other content as the SDK
 * gives it. A result marked `isError` fails the call with its text.
 *
 * Reads the server's tool list once, now.
 *
 * @throws ConfigurationError naming every tool whose name or schema cannot
 * be used (pick the others with `include`), an unknown name in `include` or
 * `needsApproval`, or a name two tools would share.
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
  const listed = await listAllTools(client);
  const problems: string[] = [];
  const listedNames = new Set(listed.map((tool) => tool.name));
  for (const name of [...(options.include ?? []), ...Object.keys(options.needsApproval ?? {})]) {
    if (!listedNames.has(name)) {
      problems.push(
        `MCP server "${serverName}" has no tool "${name}"; its tools are ${[...listedNames].join(", ")}.`,
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
          needsApproval: options.needsApproval?.[definition.name],
          annotationKeywords: options.annotationKeywords,
          timeoutMs: options.timeoutMs,
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
  return tools;
}

async function listAllTools(client: Client): Promise<McpToolDefinition[]> {
  const tools: McpToolDefinition[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

interface McpToolSettings {
  serverName: string;
  implementation: string;
  trusted: boolean;
  needsApproval: NeedsApproval<McpToolCall> | undefined;
  annotationKeywords: readonly string[] | undefined;
  timeoutMs: number | undefined;
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
    async execute(call, { signal }) {
      const result = (await client.callTool(
        { name: call.tool, arguments: call.arguments },
        undefined,
        { signal, ...(settings.timeoutMs !== undefined ? { timeout: settings.timeoutMs } : {}) },
      )) as CallToolResult;
      return toolResultForModel(result, subject);
    },
    needsApproval: settings.needsApproval ?? !readOnly,
    readOnly,
    describeAction,
  };
  return Object.freeze(tool);
}

/**
 * `structuredContent` as it is (sent as JSON); text content as its text;
 * other content as the SDK gives it. An `isError` result throws its text.
 */
function toolResultForModel(result: CallToolResult, subject: string): unknown {
  const blocks = Array.isArray(result.content) ? result.content : [];
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
