import type { TransportOptions } from "../../internal/http/transport-options.js";
import type { OrderLocation } from "./order-base-url.js";
import type { OrderEnvironment } from "./order-environment.js";
import type { OrderRouteOverrides } from "./order-routes.js";

/** Everything `OrderClient` takes besides the service address: its token, bulk and route settings, and the shared transport options. */
export interface OrderClientSettings extends TransportOptions {
  /**
   * The bearer token (`encrypted_token` from `POST /secrets`, a JWT starting
   * with `eyJ`). Without one, only `createToken` may be called.
   */
  token?: string | undefined;
  /** Retries after the first attempt (reads; writes only on 408/429). @default 2 */
  maxRetries?: number | undefined;
  /** Items per request when a bulk write or delete is split. @default 100 */
  batchSize?: number | undefined;
  /** Overrides of the route table, merged over `orderRoutes`. */
  routes?: OrderRouteOverrides | undefined;
  /**
   * Which environment the address belongs to. When omitted: a host containing
   * `sandbox` or a loopback host is `sandbox`, anything else `production`.
   */
  environment?: OrderEnvironment | undefined;
}

/**
 * Options of `OrderClient`: `baseUrl` (`https://{host}/{account_slug}/api/v1/`)
 * or `host` and `accountSlug`, plus the settings.
 * @example
 * new OrderClient({ host: "sandbox.example.com", accountSlug: "acme", token })
 */
export type OrderClientOptions = OrderLocation & OrderClientSettings;
