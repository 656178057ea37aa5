import type * as ServerModule from "@modelcontextprotocol/sdk/server/index.js";
import type * as StdioModule from "@modelcontextprotocol/sdk/server/stdio.js";
import type * as StreamableHttpModule from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type * as TypesModule from "@modelcontextprotocol/sdk/types.js";
import { loadOptionalPeer } from "../internal/load-optional-peer.js";

/**
 * The MCP SDK's modules, loaded on first use: the SDK is an optional peer
 * dependency, installed by those who serve or use MCP tools
 * (`npm install @modelcontextprotocol/sdk`); without it, the first use says so.
 */
export const mcpSdk = {
  server: (neededBy: string) =>
    loadOptionalPeer<typeof ServerModule>("@modelcontextprotocol/sdk/server/index.js", neededBy),
  types: (neededBy: string) =>
    loadOptionalPeer<typeof TypesModule>("@modelcontextprotocol/sdk/types.js", neededBy),
  stdio: (neededBy: string) =>
    loadOptionalPeer<typeof StdioModule>("@modelcontextprotocol/sdk/server/stdio.js", neededBy),
  streamableHttp: (neededBy: string) =>
    loadOptionalPeer<typeof StreamableHttpModule>(
      "@modelcontextprotocol/sdk/server/streamableHttp.js",
      neededBy,
    ),
};
