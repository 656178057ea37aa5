import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";

/**
 * What {@link McpHostUser} is told about a request: what the MCP SDK's
 * request handler knows of who sent it. `authInfo` is there when the HTTP
 * server in front of the transport checked the request's token and put
 * what it found on the request (`req.auth`, as the SDK's
 * `requireBearerAuth` does); `sessionId` is the Streamable HTTP session.
 */
export interface McpHostUserContext {
  authInfo?: AuthInfo | undefined;
  sessionId?: string | undefined;
}

/**
 * Who the MCP host's user is: the person a tool call over MCP comes from,
 * and who answers its elicitation. A name (over stdio the host runs as one
 * user: `switchyard mcp` gives the local user name), or a function naming
 * the person behind each request, e.g. from the token your HTTP server
 * checked (`({ authInfo }) => authInfo?.extra?.email`); `undefined` (or a
 * throw) when it cannot tell. With an approver directory, the name is
 * looked up as the person's `identities.mcp`.
 */
export type McpHostUser =
  | string
  | ((context: McpHostUserContext) => string | undefined | Promise<string | undefined>);

/** The longest host user name taken, as an approver directory's evidence. */
const longestHostUser = 200;

/** Why `hostUser` cannot be used, or `undefined` when it can. */
export function findHostUserProblem(hostUser: unknown): string | undefined {
  if (hostUser === undefined || typeof hostUser === "function") return undefined;
  if (readHostUser(hostUser) !== undefined) return undefined;
  return `hostUser must be the MCP host's user name (a non-empty string of at most ${longestHostUser} characters, e.g. "alice"), or a function naming the user behind each request, e.g. ({ authInfo }) => authInfo?.clientId.`;
}

/**
 * The host's user behind one request, as `hostUser` names them; `undefined`
 * when it is not given, names nobody, throws, or names someone with a name
 * that is empty or too long.
 */
export async function hostUserOf(
  hostUser: McpHostUser | undefined,
  context: McpHostUserContext,
): Promise<string | undefined> {
  if (typeof hostUser !== "function") return readHostUser(hostUser);
  try {
    return readHostUser(await hostUser(context));
  } catch {
    return undefined;
  }
}

function readHostUser(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const name = value.trim();
  return name === "" || name.length > longestHostUser ? undefined : name;
}
