import { ConfigurationError } from "../../errors/configuration-error.js";

/**
 * Checks `allowedCallbackHosts` and gives the test a callback URL must pass
 * to be created without a question: an `https:` URL without credentials
 * whose host is one of the patterns (`hooks.example.com`), or, for a
 * pattern `*.example.com`, any host under `example.com` (not `example.com`
 * itself). Hosts compare case-insensitively, in their ASCII (punycode) form;
 * the port does not matter.
 *
 * @throws ConfigurationError naming each pattern that is not a host name or `*.` and one.
 */
export function compileCallbackHostPatterns(
  setName: string,
  patterns: unknown,
): (url: string) => boolean {
  if (!Array.isArray(patterns)) {
    throw new ConfigurationError(
      `${setName}: allowedCallbackHosts must be an array of host patterns such as ["hooks.example.com", "*.example.com"]`,
    );
  }
  const exact = new Set<string>();
  const suffixes: string[] = [];
  const problems: string[] = [];
  for (const pattern of patterns) {
    const wildcard = typeof pattern === "string" && pattern.startsWith("*.");
    const host =
      typeof pattern === "string" ? asciiHost(wildcard ? pattern.slice(2) : pattern) : undefined;
    if (host === undefined) {
      problems.push(
        `${setName}: allowedCallbackHosts has ${JSON.stringify(pattern)}, which is not a host name or "*." and a host name (write "hooks.example.com" or "*.example.com", without scheme, port or path)`,
      );
    } else if (wildcard) suffixes.push(`.${host}`);
    else exact.add(host);
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return (url) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (parsed.protocol !== "https:" || parsed.username !== "" || parsed.password !== "") {
      return false;
    }
    const host = parsed.hostname.toLowerCase();
    return exact.has(host) || suffixes.some((suffix) => host.endsWith(suffix));
  };
}

// The host as URL parsing spells it, or undefined when the text is more (or less) than a host name.
function asciiHost(text: string): string | undefined {
  if (!/^[^\s/:?#@*\\[\]]+$/u.test(text)) return undefined;
  try {
    const host = new URL(`https://${text}/`).hostname.toLowerCase();
    return host.includes(".") ? host : undefined;
  } catch {
    return undefined;
  }
}
