/**
 * `switchyard-agents/mcp`: Switchyard tools over the Model Context Protocol, both
 * ways. Serve tools to any MCP host (`createMcpServer`, `serveMcpOverStdio`,
 * `serveMcpOverHttp`, or the `switchyard mcp` command), and give an agent
 * the tools of any MCP server (`mcpTools`), the approval gate kept either
 * way. Loads the MCP SDK, which `import("switchyard-agents")` never does.
 *
 * @module switchyard-agents/mcp
 */
export type { McpElicitationHandler } from "./answer-elicitations.js";
export { createMcpServer, type McpServerOptions } from "./create-mcp-server.js";
export type { McpHostUser, McpHostUserContext } from "./mcp-host-user.js";
export { type McpToolsOptions, mcpTools } from "./mcp-tools.js";
export {
  type McpHttpEndpoint,
  type ServeMcpOverHttpOptions,
  serveMcpOverHttp,
} from "./serve-mcp-over-http.js";
export {
  type McpStdioConnection,
  serveMcpOverStdio,
} from "./serve-mcp-over-stdio.js";
export { toolAnnotations } from "./tool-annotations.js";
