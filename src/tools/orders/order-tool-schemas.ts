import { maximumPageSize } from "../../clients/orders/build-list-query.js";
import { callbackHoldTypes, isCallbackHoldType } from "../../clients/orders/callback-hold-types.js";
import {
  callbackMessageTypes,
  isCallbackMessageType,
} from "../../clients/orders/callback-message-types.js";
import { buildOnFirstUse } from "../../internal/build-on-first-use.js";
import { loadZod } from "../../internal/load-zod.js";

/**
 * Parameter schemas of the order tools. They carry the rules `OrderClient`
 * checks (UUID ids, the seven callback types and the four hold types, https
 * URLs, paging bounds), so a mistake reaches the model as an
 * `invalid_arguments` message naming the field, before anything is sent.
 */

/** Most callbacks listed in one result; the rest are counted in `omitted`. */
export const maximumListedCallbacks = 50;
/** Most ids one delete_callbacks call takes (one `DELETE /callbacks` of the service). */
// The approver must be able to see every callback it approves deleting (the
// approval message lists up to 100), so one call deletes at most 100.
export const maximumCallbackIdsPerCall = 100;
/** Most callbacks one create_callbacks call registers. */
export const maximumNewCallbacksPerCall = 100;
/** Most orders one create_orders, update_orders or cancel_orders call takes. */
export const maximumOrdersPerCall = 100;
/** Page size of the list tools when the model gives none. */
export const defaultListLimit = 50;

/** The schemas, built once on first use (so importing Switchyard does not load zod). */
function buildOrderToolSchemas() {
  const { z } = loadZod();

  const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const reservedFilterKeys = new Set(["limit", "offset", "list_type", "listType"]);

  function quoted(value: unknown): string {
    if (typeof value !== "string") return `a ${value === null ? "null" : typeof value}`;
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  }

  /** A string with at least one non-blank character. */
  function nonBlankString(what: string) {
    return z
      .string({ error: `must be a string: ${what}` })
      .regex(/\S/, `must not be empty: ${what}`);
  }

  /** A callback id as list_callbacks shows it. */
  const callbackIdSchema = z
    .string({ error: "must be a callback id string, as list_callbacks returns it" })
    .regex(
      uuidPattern,
      "must be a UUID (8-4-4-4-12 hexadecimal digits) exactly as list_callbacks returns it",
    );

  /** One of the seven callback message types. */
  const callbackMessageTypeSchema = z.enum(callbackMessageTypes, {
    error: (issue) =>
      `${quoted(issue.input)} is ${isCallbackHoldType(issue.input) ? "a hold type but not a callback message type (the two lists differ)" : "not a callback message type"}; use one of ${callbackMessageTypes.join(", ")}`,
  });

  /** One of the four message types that can be held. */
  const callbackHoldTypeSchema = z.enum(callbackHoldTypes, {
    error: (issue) =>
      `${quoted(issue.input)} is ${isCallbackMessageType(issue.input) ? "a callback message type but not a hold type (the two lists differ)" : "not a hold type"}; use one of ${callbackHoldTypes.join(", ")}`,
  });

  /** An absolute `https:` address without credentials. */
  const httpsUrlSchema = z
    .string({ error: "must be the https address that receives the webhooks" })
    .refine(
      (value) => {
        try {
          const url = new URL(value);
          return url.protocol === "https:" && url.hostname !== "" && !url.username && !url.password;
        } catch {
          return false;
        }
      },
      {
        error:
          "must be an absolute https URL without credentials, e.g. https://hooks.example.com/orders",
      },
    );

  /** list_callbacks */
  const listCallbacksParameters = z.strictObject({
    message_type: z
      .enum([...callbackMessageTypes, "all"] as const, {
        error: (issue) =>
          `${quoted(issue.input)} is not a callback message type; use "all" or one of ${callbackMessageTypes.join(", ")}`,
      })
      .default("all")
      .describe('Only callbacks of this message type; "all" (the default) lists every callback.'),
  });

  /** create_callbacks */
  const createCallbacksParameters = z.strictObject({
    callbacks: z
      .array(
        z.strictObject({
          url: httpsUrlSchema.describe("The https address that receives the webhook POSTs."),
          message_type: callbackMessageTypeSchema,
          api_version: nonBlankString("the API version of the payloads, e.g. 1.0")
            .optional()
            .describe("Payload API version; the service's default when omitted."),
        }),
      )
      .min(1, "give at least one callback to register")
      .max(
        maximumNewCallbacksPerCall,
        `at most ${maximumNewCallbacksPerCall} callbacks per call: split them over several calls`,
      ),
  });

  /** delete_callbacks */
  const deleteCallbacksParameters = z.strictObject({
    callback_ids: z
      .array(callbackIdSchema)
      .min(1, "give at least one callback id to delete")
      .max(
        maximumCallbackIdsPerCall,
        `at most ${maximumCallbackIdsPerCall} ids per call: split them over several calls`,
      )
      .describe("Ids of the callbacks to delete, as list_callbacks returns them."),
  });

  /** list_callback_holds */
  const listCallbackHoldsParameters = z.strictObject({});

  const holdTypesParameter = z
    .array(callbackHoldTypeSchema)
    .min(1, `give at least one hold type: ${callbackHoldTypes.join(", ")}`)
    .max(callbackHoldTypes.length, `there are only ${callbackHoldTypes.length} hold types`)
    .describe(`Hold types (not callback message types): ${callbackHoldTypes.join(", ")}.`);

  /** hold_callbacks */
  const holdCallbacksParameters = z.strictObject({ message_types: holdTypesParameter });

  /** release_callback_holds */
  const releaseCallbackHoldsParameters = z.strictObject({
    message_types: holdTypesParameter,
  });

  /** Every list tool: paging, detail level and equality filters. */
  const listRecordsParameters = z.strictObject({
    limit: z
      .number({ error: "must be a number of records per page, 1 to 100" })
      .int("must be a whole number from 1 to 100")
      .min(1, "must be at least 1")
      .max(maximumPageSize, `must be at most ${maximumPageSize}: page with offset for more`)
      .default(defaultListLimit)
      .describe(`Records per page, 1 to ${maximumPageSize}.`),
    offset: z
      .number({ error: "must be a number: how many records to skip" })
      .int("must be a whole number of at least 0")
      .min(0, "must be at least 0")
      .default(0)
      .describe("Records to skip; pass the previous result's next_offset to read the next page."),
    list_type: z
      .enum(["detail", "summary"], { error: 'must be "detail" or "summary"' })
      .default("summary")
      .describe('"summary" (essential fields) or "detail" (every field).'),
    filters: z
      .record(z.string(), z.string({ error: "each filter value must be a string" }))
      .refine((filters) => !Object.keys(filters).some((key) => reservedFilterKeys.has(key)), {
        error: "limit, offset and list_type are parameters of their own, not filters",
      })
      .optional()
      .describe('Field equality filters passed to the service, e.g. {"status": "shipped"}.'),
  });

  const customerIdentifier = nonBlankString(
    "the order's customer_identifier, which matches it with its result",
  );

  /** create_orders */
  const createOrdersParameters = z.strictObject({
    orders: z
      .array(z.looseObject({ customer_identifier: customerIdentifier }))
      .min(1, "give at least one order")
      .max(
        maximumOrdersPerCall,
        `at most ${maximumOrdersPerCall} orders per call: split them over several calls`,
      )
      .describe("Orders to create, each with its customer_identifier and the order's fields."),
  });

  /** update_orders */
  const updateOrdersParameters = z.strictObject({
    orders: z
      .array(
        z
          .looseObject({ customer_identifier: customerIdentifier })
          .refine((order) => Object.keys(order).some((key) => key !== "customer_identifier"), {
            error: "no change given: add the fields to change next to customer_identifier",
          }),
      )
      .min(1, "give at least one order to update")
      .max(
        maximumOrdersPerCall,
        `at most ${maximumOrdersPerCall} orders per call: split them over several calls`,
      )
      .describe("Changes: each item is {customer_identifier, ...fields to change}."),
  });

  /** cancel_orders */
  const cancelOrdersParameters = z.strictObject({
    customer_identifiers: z
      .array(customerIdentifier)
      .min(1, "give at least one order identifier")
      .max(
        maximumOrdersPerCall,
        `at most ${maximumOrdersPerCall} orders per call: split them over several calls`,
      )
      .describe("customer_identifier of each order to cancel."),
  });
  return {
    nonBlankString,
    callbackIdSchema,
    callbackMessageTypeSchema,
    callbackHoldTypeSchema,
    httpsUrlSchema,
    listCallbacksParameters,
    createCallbacksParameters,
    deleteCallbacksParameters,
    listCallbackHoldsParameters,
    holdCallbacksParameters,
    releaseCallbackHoldsParameters,
    listRecordsParameters,
    createOrdersParameters,
    updateOrdersParameters,
    cancelOrdersParameters,
  };
}

/** The order tools' parameter schemas, by name. */
export type OrderToolSchemas = ReturnType<typeof buildOrderToolSchemas>;

/** The order tools' parameter schemas, built on the first call. */
export const orderToolSchemas: () => OrderToolSchemas = buildOnFirstUse(buildOrderToolSchemas);
