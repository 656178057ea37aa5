import { isLoopbackHostname } from "../../internal/http/url-policy.js";
import { withoutTrailingSlashes } from "../../internal/without-trailing-slashes.js";

/** Where the service lives: a full base URL, or the host and account slug it is built from. */
export type OrderLocation =
  | { baseUrl: string; host?: undefined; accountSlug?: undefined }
  | { host: string; accountSlug: string; baseUrl?: undefined };

const accountSlugPattern = /^[A-Za-z0-9._~-]+$/;
const hostPattern = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/**
 * Builds the base URL `https://{host}/{account_slug}/api/v1/` or takes the
 * given `baseUrl`, always ending in `/` so route paths append below it. A
 * loopback host without a scheme gets `http:` (the simulators speak plain
 * HTTP); a `host` may also carry an explicit `http://` or `https://`.
 * Problems go into `problems`; the result is undefined when there are some.
 */
export function resolveOrderBaseUrl(location: unknown, problems: string[]): string | undefined {
  const { baseUrl, host, accountSlug } = (location ?? {}) as Record<string, unknown>;
  if (baseUrl !== undefined) {
    if (host !== undefined || accountSlug !== undefined) {
      problems.push("give either baseUrl or host and accountSlug, not both");
      return undefined;
    }
    if (typeof baseUrl !== "string" || baseUrl.trim() === "") {
      problems.push(
        "baseUrl must be a non-empty string such as https://sandbox.example.com/acme/api/v1/",
      );
      return undefined;
    }
    return baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`;
  }
  if (host === undefined && accountSlug === undefined) {
    problems.push(
      "the service address is required: pass baseUrl (https://{host}/{account_slug}/api/v1/) or host and accountSlug",
    );
    return undefined;
  }
  const before = problems.length;
  const scheme = typeof host === "string" ? /^(https?):\/\//i.exec(host)?.[1]?.toLowerCase() : "";
  const bareHost =
    typeof host === "string" ? withoutTrailingSlashes(host.replace(/^https?:\/\//i, "")) : "";
  if (typeof host !== "string" || !hostPattern.test(bareHost)) {
    problems.push(
      'host must be a host name with an optional port, such as "sandbox.example.com" or "127.0.0.1:8080"',
    );
  }
  if (typeof accountSlug !== "string" || !accountSlugPattern.test(accountSlug)) {
    problems.push(
      "accountSlug must be the account identifier from the service, made of letters, digits, '.', '_', '~' or '-'",
    );
  }
  if (problems.length > before) return undefined;
  const hostname = bareHost.replace(/:\d+$/, "");
  const protocol = scheme || (isLoopbackHostname(hostname) ? "http" : "https");
  return `${protocol}://${bareHost}/${accountSlug as string}/api/v1/`;
}
