/**
 * What a request to the MCP HTTP server comes from, and what a server may
 * allow: host names (its `Host` header, `allowedHosts`) and web origins
 * (its `Origin` header, `allowedOrigins`), each spelled as `URL` spells it.
 * One home for these rules: `serveMcpOverHttp` and `switchyard mcp`'s
 * `--allowed-hosts` / `--allowed-origins` both read them here.
 */

/** The host name of a `Host` header or host list entry (port dropped), or `undefined` when it is none. */
export function hostName(value: string): string | undefined {
  if (value === "" || /[/?#@\s\\]/.test(value)) return undefined;
  try {
    return new URL(`http://${value}`).hostname || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The host name an `allowedHosts` entry names (lower case, IPv6 in
 * brackets), or `undefined` when the entry is not a host name without port.
 */
export function allowedHostName(entry: unknown): string | undefined {
  if (typeof entry !== "string") return undefined;
  const name = hostName(entry);
  return name !== undefined && name === entry.toLowerCase() ? name : undefined;
}

/** `scheme://host[:port]` of an http(s) origin, or `undefined` (also for `"null"`). */
export function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "") {
      return undefined;
    }
    return url.origin;
  } catch {
    return undefined;
  }
}
