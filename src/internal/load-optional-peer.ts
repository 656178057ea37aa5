import { createRequire } from "node:module";
import { ConfigurationError } from "../errors/configuration-error.js";

const require = createRequire(import.meta.url);

/** `@scope/name/sub/path.js` -> `@scope/name`; `pg` -> `pg`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

/**
 * An optional peer dependency (`pg`, the MCP SDK), loaded when the feature
 * that needs it is first used, so the core install carries neither. Loaded
 * synchronously through its CommonJS entry, since the callers are sync.
 * When the package is not installed, a {@link ConfigurationError} says who
 * needs it and the line that installs it; any other failure to load is
 * thrown as it is.
 *
 * @param specifier What to require, e.g. `"pg"` or `"@modelcontextprotocol/sdk/server/index.js"`.
 * @param neededBy Who needs it, for the message, e.g. `"PostgresRunStore"`.
 */
export function loadOptionalPeer<T>(specifier: string, neededBy: string): T {
  try {
    return require(specifier) as T;
  } catch (error) {
    const missing =
      (error as { code?: unknown }).code === "MODULE_NOT_FOUND" &&
      String((error as Error).message).startsWith(`Cannot find module '${specifier}'`);
    if (!missing) throw error;
    const name = packageOf(specifier);
    throw new ConfigurationError(
      `${neededBy} needs the package ${name}, which is not installed (an optional peer dependency of switchyard-agents): npm install ${name}`,
      { cause: error },
    );
  }
}
