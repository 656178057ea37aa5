import type { LayoutReader } from "./layout-reader.js";
import type { LoadedSpec } from "./openapi-spec.js";
import { finding, type SiteFinding } from "./site-finding.js";

const methodOrder = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE"];

/**
 * With `api.playground.proxy: false` the browser calls the API directly, so
 * the API must answer CORS preflights. The warning lists the headers it
 * needs, with the methods and request headers the specs' operations use.
 */
export function checkPlaygroundProxy(
  reader: LayoutReader,
  specs: readonly LoadedSpec[],
): SiteFinding[] {
  if (reader.get(["api", "playground", "proxy"]) !== false) return [];
  const operations = specs
    .flatMap((spec) => spec.operations)
    .filter((operation) => !operation.excluded);
  const methods = new Set([...operations.map((operation) => operation.method), "OPTIONS"]);
  const orderedMethods = methodOrder.filter((method) => methods.has(method));
  const headers = [
    "Authorization",
    "Content-Type",
    ...new Set(operations.flatMap((operation) => operation.headerParameters)),
  ];
  const baseUrl = reader.get(["api", "baseUrl"]);
  const api = typeof baseUrl === "string" ? baseUrl : (specs[0]?.servers[0] ?? "the API");
  return [
    finding(
      "warning",
      "playground-proxy-disabled",
      reader.where(["api", "playground", "proxy"]),
      `api.playground.proxy is false: the browser sends playground requests straight to ${api}, which must then allow cross-origin requests from the docs site, or every "Send" fails`,
      `Set api.playground.proxy to true, or make ${api} answer requests (and OPTIONS preflights) from the docs site's origin with: Access-Control-Allow-Origin: <docs site origin>; Access-Control-Allow-Headers: ${headers.join(", ")}; Access-Control-Allow-Methods: ${orderedMethods.join(", ")}.`,
    ),
  ];
}
