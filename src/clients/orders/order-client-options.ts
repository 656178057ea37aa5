import type { Logger } from "../../internal/logger.js";
import type { OrderLocation } from "./order-base-url.js";
import type { OrderEnvironment } from "./order-environment.js";
import type { OrderRouteOverrides } from "./order-routes.js";

/** Everything `OrderClient` takes besides the service address. */
export interface OrderClientSettings {
  /**
   * The bearer token (`encrypted_token` from `POST /secrets`, a JWT starting
   * with `eyJ`). Without one, only `createToken` may be called.
   */
  token?: string;
  /** @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  logger?: Logger;
  /** Per-attempt timeout in milliseconds. @default 60000 */
  timeoutMs?: number;
  /** Retries after the first attempt (reads; writes only on 408/429). @default 2 */
  maxRetries?: number;
  /** First backoff delay in milliseconds. @default 500 */
  initialRetryDelayMs?: number;
  /** Ceiling of one backoff delay in milliseconds. @default 8000 */
  maxRetryDelayMs?: number;
  /** Items per request when a bulk write or delete is split. @default 100 */
  batchSize?: number;
  /** Overrides of the route table, merged over `orderRoutes`. */
  routes?: OrderRouteOverrides;
  /**
   * Which environment the address belongs to. When omitted: a host containing
   * `sandbox` or a loopback host is `sandbox`, anything else `production`.
   */
  environment?: OrderEnvironment;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/**
 * Options of `OrderClient`: `baseUrl` (`https://{host}/{account_slug}/api/v1/`)
 * or `host` and `accountSlug`, plus the settings.
 * @example
 * new OrderClient({ host: "sandbox.example.com", accountSlug: "acme", token })
 */
export type OrderClientOptions = OrderLocation & OrderClientSettings;
