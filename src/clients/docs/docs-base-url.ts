import { ConfigurationError } from "../../errors/configuration-error.js";
import { parseServiceUrl } from "../../internal/http/url-policy.js";
import { withoutTrailingSlashes } from "../../internal/without-trailing-slashes.js";

const versionedPath = "/cli/v1";

/**
 * Checks that `baseUrl` is an allowed service address whose path ends with
 * `/cli/v1` (the CLI API's versioned root), and returns it without a
 * trailing slash. The error suggests the address the caller likely meant.
 */
export function checkDocsBaseUrl(baseUrl: unknown): string {
  const url = parseServiceUrl(baseUrl, "baseUrl");
  const path = withoutTrailingSlashes(url.pathname);
  if (path.endsWith(versionedPath)) {
    return `${url.origin}${path}${url.search}`;
  }
  throw new ConfigurationError(
    `baseUrl ${url.origin}${url.pathname} must end with ${versionedPath}, the versioned root of the documentation CLI API: use ${url.origin}${suggestPath(path)}`,
  );
}

function suggestPath(path: string): string {
  const inside = path.indexOf(`${versionedPath}/`);
  if (inside >= 0) return path.slice(0, inside + versionedPath.length);
  if (path.endsWith("/cli")) return `${path}/v1`;
  if (/\/cli\/v\d+$/.test(path)) return path.replace(/\/v\d+$/, "/v1");
  return `${path}${versionedPath}`;
}
