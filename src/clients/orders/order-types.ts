import type { QueryValue } from "../../internal/http/http-client.js";
import type { CallbackMessageType } from "./callback-message-types.js";

/**
 * A SKU, inventory, order, return or shipment record. The seed names none of
 * their fields, so every field is kept as it comes (timestamps stay RFC 3339 strings).
 */
export interface ServiceRecord {
  /** The caller's identifier of the record; required on the records sent to create or update. */
  customer_identifier?: string;
  [field: string]: unknown;
}

/** A registered callback (webhook subscription). Unknown fields are kept. */
export interface Callback {
  id: string;
  /** HTTPS address that receives the webhook POSTs. */
  url: string;
  message_type: string;
  api_version?: string;
  /** Encrypted verification token, when configured. A secret: never show it to a model. */
  token?: string;
  /** Registration time, RFC 3339. */
  created_at?: string;
  [field: string]: unknown;
}

/** One callback to register. */
export interface NewCallback {
  /** Must be an absolute `https:` URL. */
  url: string;
  message_type: CallbackMessageType;
  api_version?: string;
  /** Verification token the service sends back; treated as a secret. */
  token?: string;
}

/** `detail` (all fields) or `summary` (essential fields). */
export type ListType = "detail" | "summary";

/**
 * Paging of every list call, plus filters passed through as query parameters.
 * @example { limit: 50, listType: "summary", status: "shipped" }
 */
export interface ListParams {
  /** Page size, an integer from 1 to 100. @default the service's (100 when iterating) */
  limit?: number;
  /** Start position, an integer of at least 0. @default 0 */
  offset?: number;
  /** Sent as `list_type`. */
  listType?: ListType;
  /** Any other query parameter the service understands; `undefined` and `null` are left out. */
  [filter: string]: QueryValue;
}

/** One page of a list: the service's list envelope (extra fields kept). */
export interface ListPage<T> {
  data: T[];
  /** Page size the service applied, when it said. */
  limit?: number;
  /** Offset of this page, when the service said. */
  offset?: number;
  list_type?: string;
  [field: string]: unknown;
}

/** Outcome of one item of a bulk write, in the position of the item it answers. */
export interface BatchItemResult {
  /** The item's identifier as sent (`""` when the item had none). */
  customer_identifier: string;
  status: "success" | "failure";
  /** Why the item failed: the service's message, or why it was not sent or not answered. */
  error_message?: string;
  [field: string]: unknown;
}

/**
 * The batch result envelope of a bulk write, merged across every request the
 * write was split into. `results` holds one entry per input item, in input order.
 */
export interface BatchResult {
  /** Items given by the caller, including those refused before sending. */
  records_submitted: number;
  /** Items the service answered for (successfully or not). */
  records_processed: number;
  /** Items that failed for any reason: refused locally, their request failed, the service said so, or no answer. */
  records_failed: number;
  records_succeeded: number;
  results: BatchItemResult[];
}

/** Outcome of deleting one callback id, in the position of the id it answers. */
export interface DeleteCallbackResult {
  id: string;
  status: "success" | "failure";
  error_message?: string;
  [field: string]: unknown;
}

/** Answer of `DELETE /secrets`. */
export interface DeleteSecretPhraseResult {
  status: string;
  [field: string]: unknown;
}
