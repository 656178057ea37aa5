import type { CallbackMessageType, HoldMessageType } from "./message-types.js";

/** A registered callback, as the service stores and lists it. */
export interface CallbackRecord {
  id: string;
  url: string;
  message_type: CallbackMessageType;
  api_version: string;
  /** The verification token in its stored (sealed) form; present only if configured. */
  token?: string;
  created_at: string;
}

/** Order states named by the service. */
export type OrderStatus = "created" | "shipped" | "delivered" | "canceled";

/** A record of a list endpoint: fixed `id`, any other fields. */
export interface StoredRecord {
  id: string;
  [field: string]: unknown;
}

/** An order; fields beyond these are kept as the caller sent them. */
export interface OrderRecord extends StoredRecord {
  customer_identifier: string;
  status: OrderStatus;
  created_at: string;
  updated_at: string;
}

/** Everything the order-management simulator holds. Tests may read and change it. */
export interface OrdersState {
  callbacks: CallbackRecord[];
  /** Ids of callbacks deleted earlier, so a second delete reports "already deleted". */
  deletedCallbackIds: Set<string>;
  holds: HoldMessageType[];
  skus: StoredRecord[];
  inventory: StoredRecord[];
  orders: OrderRecord[];
  returns: StoredRecord[];
  inboundShipments: StoredRecord[];
  outboundShipments: StoredRecord[];
}

/** What route handlers share: the state (replaced by `reset`), the id source and the clock. */
export interface OrdersService {
  state: OrdersState;
  /** A new record's id: fresh on every start, or from the seed when one was given. */
  newId(): string;
  now(): Date;
  maxBatchSize: number;
  maxCallbackIds: number;
  defaultLimit: number;
  /** Turns a callback verification token into its stored form. */
  sealCallbackToken(token: string): string;
}
