export {
  HttpClient,
  type HttpClientOptions,
  type HttpRequest,
  type HttpResponse,
  type QueryValue,
} from "./http-client.js";
export {
  isRetryableStatus,
  maxRetryAfterMs,
  readRetryAfterMs,
} from "./retry-policy.js";
export { isLoopbackHostname, parseServiceUrl } from "./url-policy.js";
