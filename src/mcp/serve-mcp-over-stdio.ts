import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { mcpSdk } from "./mcp-sdk.js";

/** Where {@link serveMcpOverStdio} reads and writes. */
export interface McpStdioStreams {
  /** MCP messages from the host, one JSON line each. @default process.stdin */
  stdin?: NodeJS.ReadableStream | undefined;
  /** MCP messages to the host and nothing else. @default process.stdout */
  stdout?: NodeJS.WritableStream | undefined;
}

/** An MCP server connected over stdio. */
export interface McpStdioConnection {
  /** Resolves when the host closes stdin or {@link McpStdioConnection.close} is called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves an MCP server over stdio, as MCP hosts start local servers: the
 * host writes to stdin and reads stdout, so nothing else may be written
 * there (log to stderr). Ends when the host closes stdin.
 *
 * @example
 * const connection = await serveMcpOverStdio(createMcpServer({ tools, approver }));
 * await connection.closed;
 */
export async function serveMcpOverStdio(
  server: Server,
  streams: McpStdioStreams = {},
): Promise<McpStdioConnection> {
  const stdin = streams.stdin ?? process.stdin;
  const { StdioServerTransport } = mcpSdk.stdio("serveMcpOverStdio");
  const transport = new StdioServerTransport(
    stdin as NodeJS.ReadStream,
    (streams.stdout ?? process.stdout) as NodeJS.WriteStream,
  );
  const closed = new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
  });
  const close = () => server.close();
  // The SDK's transport keeps waiting after the host has gone; the end of stdin is the end.
  stdin.once("end", () => {
    close().catch(() => {});
  });
  await server.connect(transport);
  return { closed, close };
}
