import { ConfigurationError } from "../../errors/configuration-error.js";

const loopbackHostnames = new Set(["localhost", "[::1]", "::1"]);

/** True for 127.0.0.0/8, `localhost` and `[::1]`. */
export function isLoopbackHostname(hostname: string): boolean {
  if (loopbackHostnames.has(hostname.toLowerCase())) return true;
  const parts = hostname.split(".");
  return (
    parts.length === 4 &&
    parts[0] === "127" &&
    parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)
  );
}

/**
 * Parses a service address and enforces `https:` (plain `http:` only for
 * loopback hosts, which the simulators and tests use). `label` names the
 * option in the error, e.g. `baseUrl`.
 */
export function parseServiceUrl(value: unknown, label: string): URL {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ConfigurationError(
      `${label} is required: give the service address, e.g. https://api.example.com/v1`,
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(
      `${label} "${value}" is not a valid URL: give an absolute address such as https://api.example.com/v1`,
    );
  }
  if (url.username || url.password) {
    throw new ConfigurationError(
      `${label} must not carry credentials in the URL: pass the token option instead`,
    );
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && isLoopbackHostname(url.hostname)) return url;
  if (url.protocol === "http:") {
    throw new ConfigurationError(
      `${label} ${url.origin} uses plain http: only https is allowed, except for loopback hosts (127.0.0.1, localhost, [::1])`,
    );
  }
  throw new ConfigurationError(`${label} ${url.origin} has protocol ${url.protocol}: use https`);
}
