import { createHmac } from "node:crypto";
import { readBearerToken } from "../http/bearer-token.js";
import type { FaultRule } from "../http/fault-injector.js";
import { copyJson } from "../http/json-values.js";
import type { RecordedRequest } from "../http/request-log.js";
import { SeededRandom, uuidSource } from "../http/seeded-random.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";
import { startSimulatorServer } from "../http/simulator-server.js";
import { callbackRoutes } from "./callback-routes.js";
import { createRoutes } from "./create-routes.js";
import { createSeededOrdersState } from "./create-seeded-orders-state.js";
import { holdRoutes } from "./hold-routes.js";
import { listRoutes } from "./list-routes.js";
import type { HoldMessageType } from "./message-types.js";
import { orderChangeRoutes } from "./order-change-routes.js";
import type {
  CallbackRecord,
  OrderRecord,
  OrdersService,
  OrdersState,
  StoredRecord,
} from "./orders-state.js";
import { secretRoutes } from "./secret-routes.js";
import { TokenIssuer } from "./token-issuer.js";

/** Options of {@link startOrdersSimulator}. */
export interface OrdersSimulatorOptions {
  /** Port on 127.0.0.1. @default 0 (a free port) */
  port?: number;
  /** First path segment of the base URL. @default "acme-sandbox" */
  accountSlug?: string;
  /** Phrase of the pre-issued {@link OrdersSimulator.token}. @default "acme sandbox integration phrase" */
  secretPhrase?: string;
  /**
   * Seed of the seeded data and of the ids of records created later; equal
   * seeds give equal data and ids. Without it the seeded data is that of
   * 20250602 and every start hands out fresh ids.
   */
  seed?: number;
  /** Most records (or callbacks) one create/update/cancel request may carry; more gives 413. @default 100 */
  maxBatchSize?: number;
  /** Most ids one `DELETE /callbacks` may carry; more gives 413. @default 1000 */
  maxCallbackIds?: number;
  /** Page size when a list request has no `limit`. @default 20 */
  defaultLimit?: number;
  /** Clock for created_at/updated_at of new records. @default () => new Date() */
  now?: () => Date;
}

/** A running order-management simulator (docs/contract.md §2). */
export interface OrdersSimulator {
  /** Base URL, `http://127.0.0.1:PORT/{accountSlug}/api/v1` (no trailing slash). */
  url: string;
  /** `127.0.0.1:PORT` */
  host: string;
  port: number;
  accountSlug: string;
  /** A valid bearer token, issued at start for {@link secretPhrase}. */
  token: string;
  secretPhrase: string;
  /** Every request received (live array); headers exclude `authorization`. */
  readonly requests: RecordedRequest[];
  /** The next matching request(s) get this answer instead (e.g. 429 with `retry-after: 0`, 503). */
  failNext(rule: FaultRule): void;
  clearRequests(): void;
  /** The live state; tests may change it directly. Replaced by {@link reset}. */
  readonly state: OrdersState;
  /** Copies of the registered callbacks. */
  callbacks(): CallbackRecord[];
  /** Active holds. */
  holds(): HoldMessageType[];
  orders(): OrderRecord[];
  /** A copy of one order, or undefined. */
  order(customerIdentifier: string): OrderRecord | undefined;
  skus(): StoredRecord[];
  inventory(): StoredRecord[];
  returns(): StoredRecord[];
  inboundShipments(): StoredRecord[];
  outboundShipments(): StoredRecord[];
  /** Issues a token as `POST /secrets` would. */
  issueToken(secretPhrase: string): string;
  /** Restores the seeded data, empties the request log and drops planned failures. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts an in-memory order-management service on 127.0.0.1 speaking
 * docs/contract.md §2, seeded with 12 callbacks (4 on hooks.old-warehouse.example),
 * a shipmentEvent hold, 40 SKUs, 240 orders (ORD-1000..ORD-1239), 25 returns,
 * 30 inbound and ~60 outbound shipments.
 *
 * @example
 * const orders = await startOrdersSimulator();
 * const response = await fetch(`${orders.url}/callbacks`, {
 *   headers: { authorization: `Bearer ${orders.token}` },
 * });
 * await orders.close();
 */
export async function startOrdersSimulator(
  options: OrdersSimulatorOptions = {},
): Promise<OrdersSimulator> {
  const accountSlug = options.accountSlug ?? "acme-sandbox";
  if (!/^[A-Za-z0-9._-]+$/.test(accountSlug)) {
    throw new RangeError(`accountSlug must be one URL path segment, got "${accountSlug}"`);
  }
  const seed = options.seed ?? 20250602;
  const secretPhrase = options.secretPhrase ?? "acme sandbox integration phrase";
  const now = options.now ?? (() => new Date());
  const tokenKey = `orders-simulator-callback-token:${seed}`;
  const sealCallbackToken = (token: string): string =>
    `enc_v1.${createHmac("sha256", tokenKey).update(token).digest("base64url")}`;
  const seeded = () => {
    const random = new SeededRandom(seed);
    const state = createSeededOrdersState(random, sealCallbackToken);
    return { newId: uuidSource(options.seed === undefined ? undefined : random), state };
  };

  const service: OrdersService = {
    ...seeded(),
    now,
    maxBatchSize: positiveInteger(options.maxBatchSize, 100, "maxBatchSize"),
    maxCallbackIds: positiveInteger(options.maxCallbackIds, 1000, "maxCallbackIds"),
    defaultLimit: positiveInteger(options.defaultLimit, 20, "defaultLimit"),
    sealCallbackToken,
  };
  if (service.defaultLimit > 100) throw new RangeError("defaultLimit must be at most 100");
  const tokens = new TokenIssuer(accountSlug);
  const token = tokens.issue(secretPhrase, now());

  const server = await startSimulatorServer({
    ...(options.port === undefined ? {} : { port: options.port }),
    basePath: `/${accountSlug}/api/v1`,
    errorFormat: "json",
    routes: [
      ...secretRoutes(service, tokens),
      ...callbackRoutes(service),
      ...holdRoutes(service),
      ...listRoutes(service),
      ...createRoutes(service),
      ...orderChangeRoutes(service),
    ],
    authenticate: ({ headers }) => {
      const presented = readBearerToken(headers);
      if (presented === undefined) {
        return unauthorized(
          "Missing bearer token: send Authorization: Bearer <token>, where the token comes from POST /secrets.",
        );
      }
      if (!tokens.verify(presented)) {
        return unauthorized(
          "The bearer token is not valid for this account: it is malformed, was issued by another environment, or its secret phrase was deleted. Get a new one from POST /secrets.",
        );
      }
      return undefined;
    },
  });

  return {
    url: `${server.origin}/${accountSlug}/api/v1`,
    host: server.host,
    port: server.port,
    accountSlug,
    token,
    secretPhrase,
    requests: server.requests,
    failNext: server.failNext,
    clearRequests: server.clearRequests,
    get state() {
      return service.state;
    },
    callbacks: () => copyJson(service.state.callbacks),
    holds: () => [...service.state.holds],
    orders: () => copyJson(service.state.orders),
    order: (customerIdentifier) => {
      const order = service.state.orders.find(
        (candidate) => candidate.customer_identifier === customerIdentifier,
      );
      return order ? copyJson(order) : undefined;
    },
    skus: () => copyJson(service.state.skus),
    inventory: () => copyJson(service.state.inventory),
    returns: () => copyJson(service.state.returns),
    inboundShipments: () => copyJson(service.state.inboundShipments),
    outboundShipments: () => copyJson(service.state.outboundShipments),
    issueToken: (phrase) => tokens.issue(phrase, now()),
    reset: () => {
      Object.assign(service, seeded());
      server.clearRequests();
      server.clearFaults();
    },
    close: server.close,
  };
}

function unauthorized(message: string): SimulatorHttpError {
  return new SimulatorHttpError(401, "unauthorized", message, {
    "www-authenticate": 'Bearer realm="orders"',
  });
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}
