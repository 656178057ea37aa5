import { ConfigurationError } from "../../errors/configuration-error.js";
import { SwitchyardError } from "../../errors/switchyard-error.js";
import { UnexpectedAnswerError } from "../../errors/unexpected-answer-error.js";
import { HttpClient, type QueryValue } from "../../internal/http/http-client.js";
import {
  findTransportOptionProblems,
  pickTransportOptions,
} from "../../internal/http/transport-options.js";
import { parseServiceUrl } from "../../internal/http/url-policy.js";
import { componentLogger, type Logger } from "../../internal/logger.js";
import { attachSecrets, SecretRegistry, secretsOf } from "../../internal/redact.js";
import type { RequestOptions } from "../request-options.js";
import { buildListQuery } from "./build-list-query.js";
import type { CallbackHoldType } from "./callback-hold-types.js";
import type { CallbackMessageTypeFilter } from "./callback-message-types.js";
import { checkCallbackMessageType, checkHoldTypes } from "./check-message-types.js";
import { checkNewCallbacks } from "./check-new-callbacks.js";
import { checkRequestOptions } from "./check-request-options.js";
import { describeBody } from "./describe-body.js";
import { describeTokenProblem } from "./describe-token-problem.js";
import { iterateList } from "./iterate-list.js";
import { resolveOrderBaseUrl } from "./order-base-url.js";
import type { OrderClientOptions } from "./order-client-options.js";
import {
  inferOrderEnvironment,
  type OrderEnvironment,
  orderEnvironments,
} from "./order-environment.js";
import { type OrderRouteName, type OrderRoutes, resolveOrderRoutes } from "./order-routes.js";
import type {
  BatchResult,
  Callback,
  DeleteCallbackResult,
  DeleteSecretPhraseResult,
  ListPage,
  ListParams,
  NewCallback,
  ServiceRecord,
} from "./order-types.js";
import { parseBatchResultEntries, parseDeleteCallbacksEntries } from "./parse-batch-answers.js";
import { parseCallbacks, parseHolds } from "./parse-callback-answers.js";
import { parseListPage } from "./parse-list-page.js";
import {
  prepareCallbackId,
  prepareIdentifier,
  prepareNewRecord,
  prepareUpdate,
} from "./prepare-items.js";
import { type RotateTokenRequest, rotateToken, type TokenRotationResult } from "./rotate-token.js";
import { describeSecretPhraseProblem } from "./secret-phrase.js";
import { toBatchResult, toDeleteCallbackResults } from "./to-batch-result.js";
import { type PreparedItem, writeInBatches } from "./write-in-batches.js";

/** Items per request of a bulk write when `batchSize` is not given. */
export const defaultOrderBatchSize = 100;

interface CallParts {
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Client carrying per-call secrets (phrases, callback tokens) for redaction. */
  http?: HttpClient;
  /** Set-like writes that are safe to repeat. */
  idempotent?: boolean;
}

/**
 * Client of the order management service (docs/contract.md §2): tokens,
 * callbacks and holds, lists of SKUs, inventory, orders, returns and
 * shipments, and bulk writes split into batches whose per-item results come
 * back in input order.
 *
 * Writes carry no idempotency key (the seed names none), so they are retried
 * only on 408 and 429, never on 5xx or a dropped connection; reads and hold
 * changes (which set a state) are retried on 408/409/429/5xx too.
 *
 * @example
 * const client = new OrderClient({ host: "sandbox.example.com", accountSlug: "acme", token });
 * for await (const order of client.iterateOrders({ listType: "summary" })) console.log(order);
 */
export class OrderClient {
  /** The base URL every route path is appended to, ending in `/`. */
  readonly baseUrl: string;
  /** Which environment this client is bound to; shown in logs and errors. */
  readonly environment: OrderEnvironment;
  /** Items per request of bulk writes. */
  readonly batchSize: number;
  /** The route table in use (defaults merged with the `routes` option). */
  readonly routes: Readonly<OrderRoutes>;
  readonly #options: OrderClientOptions;
  readonly #http: HttpClient;
  readonly #logger: Logger;
  readonly #hasToken: boolean;
  /** The token, and every secret phrase and callback token this client was given. */
  readonly #secrets: SecretRegistry;

  constructor(options: OrderClientOptions) {
    if (typeof options !== "object" || options === null) {
      throw new ConfigurationError(
        "OrderClient needs options: { baseUrl } or { host, accountSlug }, plus token",
      );
    }
    const problems: string[] = [];
    const baseUrl = resolveOrderBaseUrl(options, problems);
    if (options.token !== undefined) {
      const problem = describeTokenProblem(options.token);
      if (problem) problems.push(problem);
    }
    if (options.environment !== undefined && !orderEnvironments.includes(options.environment)) {
      problems.push(
        `environment ${JSON.stringify(options.environment)} is not known: use "sandbox" or "production"`,
      );
    }
    const batchSize = options.batchSize ?? defaultOrderBatchSize;
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      problems.push(`batchSize ${String(batchSize)} must be an integer of at least 1`);
    }
    let routes: OrderRoutes | undefined;
    try {
      routes = resolveOrderRoutes(options.routes);
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      problems.push(...error.problems);
    }
    problems.push(...findTransportOptionProblems(options));
    // The address is checked with the rest, so a bad token does not hide it.
    const baseUrlLabel = options.baseUrl !== undefined ? "baseUrl" : "host";
    let url: URL | undefined;
    try {
      if (baseUrl !== undefined) url = parseServiceUrl(baseUrl, baseUrlLabel);
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      problems.unshift(...error.problems);
    }
    if (problems.length > 0 || url === undefined || routes === undefined) {
      throw new ConfigurationError(problems);
    }

    this.baseUrl = url.href;
    this.environment = options.environment ?? inferOrderEnvironment(url);
    this.batchSize = batchSize;
    this.routes = routes;
    this.#options = options;
    this.#hasToken = options.token !== undefined;
    this.#secrets = new SecretRegistry().add(options.token);
    attachSecrets(this, this.#secrets);
    this.#logger = componentLogger(options.logger, "order-client", this.#secrets).child({
      environment: this.environment,
    });
    this.#http = new HttpClient({
      baseUrl: this.baseUrl,
      baseUrlLabel,
      token: options.token,
      ...pickTransportOptions(options),
      logger: this.#logger,
      environment: this.environment,
      secrets: this.#secrets,
    });
  }

  /** A client with the same settings bound to another token (e.g. after rotation). */
  withToken(token: string): OrderClient {
    const next = new OrderClient({ ...this.#options, token });
    // The new client keeps scrubbing what this one was given (old token, phrases).
    secretsOf(next)?.include(this.#secrets);
    return next;
  }

  // Tokens

  /**
   * Creates a bearer token from a secret phrase (`POST /secrets`) and returns
   * its `encrypted_token`. The phrase must have at least 12 non-blank
   * characters; keep it: it is what deletes the token later. Not retried on 5xx.
   */
  async createToken(secretPhrase: string, options?: RequestOptions): Promise<string> {
    const problem = describeSecretPhraseProblem(secretPhrase, "secretPhrase");
    if (problem) throw new ConfigurationError(problem);
    const http = this.#httpWith([secretPhrase]);
    const { body, method, url } = await this.#call("createToken", options, {
      http,
      body: { secret_phrase: secretPhrase },
    });
    const token =
      typeof body === "string"
        ? body
        : (body as { encrypted_token?: unknown } | undefined)?.encrypted_token;
    if (typeof token !== "string") {
      throw this.#unexpected(
        method,
        url,
        `no encrypted_token string in ${describeBody(body)}; a token may have been created for this phrase`,
      );
    }
    const tokenProblem = describeTokenProblem(token, "the encrypted_token");
    if (tokenProblem) throw this.#unexpected(method, url, tokenProblem);
    this.#logger.info("token created");
    return token;
  }

  /**
   * Deletes a secret phrase (`DELETE /secrets`), which invalidates the token
   * made from it at once. Destructive; not retried on 5xx.
   */
  async deleteSecretPhrase(
    secretPhrase: string,
    options?: RequestOptions,
  ): Promise<DeleteSecretPhraseResult> {
    if (typeof secretPhrase !== "string" || secretPhrase.trim() === "") {
      throw new ConfigurationError(
        "secretPhrase must be the non-empty phrase the token was created with",
      );
    }
    const http = this.#httpWith([secretPhrase]);
    const { body, method, url } = await this.#call("deleteSecretPhrase", options, {
      http,
      body: { secret_phrase: secretPhrase },
    });
    if (body === undefined) return { status: "success" };
    const status = (body as { status?: unknown } | null)?.status;
    if (typeof status !== "string") {
      throw this.#unexpected(method, url, `no status in ${describeBody(body)}`);
    }
    if (status !== "success") {
      const reason = (body as { error_message?: unknown }).error_message;
      throw new SwitchyardError(
        http.redact(
          `${method} ${url} [${this.environment}] reported status "${status}"${typeof reason === "string" ? `: ${reason}` : ""}; the phrase was not deleted`,
        ),
      );
    }
    return body as DeleteSecretPhraseResult;
  }

  /**
   * Replaces the token: creates one from `newSecretPhrase`, verifies it with a
   * harmless read (`GET /callback_holds`), calls `deploy(newToken)` if given,
   * and only then deletes `oldSecretPhrase` (using the new token). When any
   * step before the deletion fails, a `TokenRotationError` names it and the
   * old phrase is kept. A failed deletion is returned as
   * `oldPhraseDeleted: false` with `oldPhraseError`, since the new token is
   * already deployed. The result holds the new token: do not log it.
   */
  rotateToken(request: RotateTokenRequest, options?: RequestOptions): Promise<TokenRotationResult> {
    return rotateToken(this, this.#logger, request, options);
  }

  // Callbacks and holds

  /** Lists registered callbacks, optionally of one message type (or `all`). */
  async listCallbacks(
    filter: { messageType?: CallbackMessageTypeFilter } = {},
    options?: RequestOptions,
  ): Promise<Callback[]> {
    const messageType = filter?.messageType;
    if (messageType !== undefined) {
      const problem = checkCallbackMessageType(messageType, "messageType", true);
      if (problem) throw new ConfigurationError(problem);
    }
    const { body, method, url } = await this.#call("listCallbacks", options, {
      query: { message_type: messageType },
    });
    return this.#read(parseCallbacks(body), method, url);
  }

  /**
   * Registers callbacks (`POST /callbacks`). Every item is checked first (url
   * an absolute https address, message_type one of `callbackMessageTypes`);
   * if any is wrong, a `ConfigurationError` lists every problem and nothing is
   * sent. Callback tokens are treated as secrets. Not retried on 5xx.
   */
  async createCallbacks(callbacks: NewCallback[], options?: RequestOptions): Promise<Callback[]> {
    const checked = checkNewCallbacks(callbacks);
    if (checked.length === 0) return [];
    const tokens = checked.flatMap((callback) => (callback.token ? [callback.token] : []));
    const { body, method, url } = await this.#call("createCallbacks", options, {
      http: tokens.length > 0 ? this.#httpWith(tokens) : this.#http,
      body: checked,
    });
    const created = parseCallbacks(body);
    if (typeof created === "string") {
      throw this.#unexpected(
        method,
        url,
        `${created}; the callbacks may have been registered, check with listCallbacks`,
      );
    }
    return created;
  }

  /**
   * Deletes callbacks by id (`DELETE /callbacks`, body an array of UUIDs, in
   * batches of `batchSize`). Ids that are not UUIDs are reported as failures
   * and not sent; the rest still go. Answers one entry per input id, in input
   * order, whichever answer form the service used (`{deleted}`, a bare array,
   * `{results}`); an id the service did not answer for is a failure. A
   * repeated id is sent once. Destructive and irreversible; not retried on 5xx.
   */
  async deleteCallbacks(
    ids: readonly string[],
    options?: RequestOptions,
  ): Promise<DeleteCallbackResult[]> {
    if (!Array.isArray(ids)) {
      throw new ConfigurationError("ids must be an array of callback UUIDs");
    }
    checkRequestOptions(options);
    this.#requireToken("deleteCallbacks");
    const outcomes = await writeInBatches<string>({
      items: ids,
      prepare: prepareCallbackId,
      batchSize: this.batchSize,
      dedupe: true,
      normalizeKey: (key) => key.toLowerCase(),
      noun: "id",
      signal: options?.signal,
      logger: this.#logger,
      send: async (batch) =>
        parseDeleteCallbacksEntries(
          (await this.#call("deleteCallbacks", options, { body: batch })).body,
        ),
    });
    const results = toDeleteCallbackResults(outcomes);
    this.#logSummary("deleteCallbacks", results);
    return results;
  }

  /** The message types currently held (`GET /callback_holds`). */
  async listCallbackHolds(options?: RequestOptions): Promise<string[]> {
    const { body, method, url } = await this.#call("listCallbackHolds", options);
    return this.#read(parseHolds(body), method, url);
  }

  /**
   * Holds delivery of some message types (`POST /callback_holds`) and returns
   * the holds now active. Types are checked against `callbackHoldTypes`, which
   * differs from the callback types. Events during a hold are never sent
   * later: this loses data.
   */
  async holdCallbacks(types: CallbackHoldType[], options?: RequestOptions): Promise<string[]> {
    return this.#changeHolds("holdCallbacks", types, options);
  }

  /**
   * Removes holds (`DELETE /callback_holds`, body an array of types) and
   * returns the holds still active. Events from the hold period are not resent.
   */
  async releaseCallbackHolds(
    types: CallbackHoldType[],
    options?: RequestOptions,
  ): Promise<string[]> {
    return this.#changeHolds("releaseCallbackHolds", types, options);
  }

  // Lists

  /** One page of SKUs (`GET /skus`). */
  listSkus(params?: ListParams, options?: RequestOptions): Promise<ListPage<ServiceRecord>> {
    return this.#list("listSkus", params, options);
  }

  /** One page of inventory records (`GET /inventory`). */
  listInventory(params?: ListParams, options?: RequestOptions): Promise<ListPage<ServiceRecord>> {
    return this.#list("listInventory", params, options);
  }

  /** One page of orders (`GET /orders`). */
  listOrders(params?: ListParams, options?: RequestOptions): Promise<ListPage<ServiceRecord>> {
    return this.#list("listOrders", params, options);
  }

  /** One page of returns (`GET /returns`). */
  listReturns(params?: ListParams, options?: RequestOptions): Promise<ListPage<ServiceRecord>> {
    return this.#list("listReturns", params, options);
  }

  /** One page of inbound shipments (`GET /inbound_shipments`). */
  listInboundShipments(
    params?: ListParams,
    options?: RequestOptions,
  ): Promise<ListPage<ServiceRecord>> {
    return this.#list("listInboundShipments", params, options);
  }

  /** One page of outbound shipments (`GET /outbound_shipments`). */
  listOutboundShipments(
    params?: ListParams,
    options?: RequestOptions,
  ): Promise<ListPage<ServiceRecord>> {
    return this.#list("listOutboundShipments", params, options);
  }

  /** Every SKU, page after page (page size `params.limit`, default 100). */
  iterateSkus(params?: ListParams, options?: RequestOptions): AsyncGenerator<ServiceRecord> {
    return iterateList((page, call) => this.listSkus(page, call), params, options);
  }

  /** Every inventory record, page after page. */
  iterateInventory(params?: ListParams, options?: RequestOptions): AsyncGenerator<ServiceRecord> {
    return iterateList((page, call) => this.listInventory(page, call), params, options);
  }

  /** Every order, page after page. */
  iterateOrders(params?: ListParams, options?: RequestOptions): AsyncGenerator<ServiceRecord> {
    return iterateList((page, call) => this.listOrders(page, call), params, options);
  }

  /** Every return, page after page. */
  iterateReturns(params?: ListParams, options?: RequestOptions): AsyncGenerator<ServiceRecord> {
    return iterateList((page, call) => this.listReturns(page, call), params, options);
  }

  /** Every inbound shipment, page after page. */
  iterateInboundShipments(
    params?: ListParams,
    options?: RequestOptions,
  ): AsyncGenerator<ServiceRecord> {
    return iterateList((page, call) => this.listInboundShipments(page, call), params, options);
  }

  /** Every outbound shipment, page after page. */
  iterateOutboundShipments(
    params?: ListParams,
    options?: RequestOptions,
  ): AsyncGenerator<ServiceRecord> {
    return iterateList((page, call) => this.listOutboundShipments(page, call), params, options);
  }

  // Bulk writes

  /**
   * Creates orders (`POST /orders`) in batches of `batchSize`. Each record
   * needs a `customer_identifier`; one without it is reported failed and not
   * sent. Answers one result per record in input order, totals over all batches.
   */
  createOrders(records: readonly ServiceRecord[], options?: RequestOptions): Promise<BatchResult> {
    return this.#write("createOrders", records, prepareNewRecord, false, options);
  }

  /** Creates SKUs (`POST /skus`) in batches; see `createOrders`. */
  createSkus(records: readonly ServiceRecord[], options?: RequestOptions): Promise<BatchResult> {
    return this.#write("createSkus", records, prepareNewRecord, false, options);
  }

  /** Creates returns (`POST /returns`) in batches; see `createOrders`. */
  createReturns(records: readonly ServiceRecord[], options?: RequestOptions): Promise<BatchResult> {
    return this.#write("createReturns", records, prepareNewRecord, false, options);
  }

  /** Creates inbound shipments (`POST /inbound_shipments`) in batches; see `createOrders`. */
  createInboundShipments(
    records: readonly ServiceRecord[],
    options?: RequestOptions,
  ): Promise<BatchResult> {
    return this.#write("createInboundShipments", records, prepareNewRecord, false, options);
  }

  /**
   * Updates orders (`PUT /orders`, each item `{customer_identifier, ...changes}`)
   * in batches; an item without changes is reported failed and not sent.
   */
  updateOrders(changes: readonly ServiceRecord[], options?: RequestOptions): Promise<BatchResult> {
    return this.#write("updateOrders", changes, prepareUpdate, false, options);
  }

  /**
   * Cancels orders by identifier (`DELETE /orders`, body an array of
   * identifiers) in batches; a repeated identifier is sent once. Destructive.
   */
  cancelOrders(
    customerIdentifiers: readonly string[],
    options?: RequestOptions,
  ): Promise<BatchResult> {
    return this.#write("cancelOrders", customerIdentifiers, prepareIdentifier, true, options);
  }

  // Plumbing

  async #call(
    name: OrderRouteName,
    options: RequestOptions | undefined,
    parts: CallParts = {},
  ): Promise<{ body: unknown; method: string; url: string }> {
    checkRequestOptions(options);
    this.#requireToken(name);
    const http = parts.http ?? this.#http;
    const route = this.routes[name];
    const request = {
      method: route.method,
      path: route.path,
      query: parts.query,
      body: parts.body,
      idempotent: parts.idempotent,
      signal: options?.signal,
      timeoutMs: options?.timeoutMs,
    };
    const body = await http.requestJson<unknown>(request);
    return { body, method: route.method, url: http.redact(http.buildUrl(request)) };
  }

  async #list(
    name: OrderRouteName,
    params: ListParams | undefined,
    options: RequestOptions | undefined,
  ): Promise<ListPage<ServiceRecord>> {
    const query = buildListQuery(params);
    const { body, method, url } = await this.#call(name, options, { query });
    return this.#read(parseListPage<ServiceRecord>(body), method, url);
  }

  async #changeHolds(
    name: "holdCallbacks" | "releaseCallbackHolds",
    types: unknown,
    options: RequestOptions | undefined,
  ): Promise<string[]> {
    const problems: string[] = [];
    const unique = checkHoldTypes(types, "types", problems);
    if (problems.length > 0) throw new ConfigurationError(problems);
    // Holding or releasing a type sets a state, so repeating it is harmless and may be retried.
    const { body } = await this.#call(name, options, { body: unique, idempotent: true });
    const holds = parseHolds(body);
    this.#logger.info({ operation: name, types: unique }, "callback holds changed");
    // The answer's shape is assumed (docs/contract.md §2); when it differs, ask for the state instead.
    return typeof holds === "string" ? this.listCallbackHolds(options) : holds;
  }

  async #write<Item>(
    name: OrderRouteName,
    items: readonly unknown[],
    prepare: (item: unknown) => PreparedItem<Item>,
    dedupe: boolean,
    options: RequestOptions | undefined,
  ): Promise<BatchResult> {
    if (!Array.isArray(items)) {
      throw new ConfigurationError(`${name} takes an array of items`);
    }
    checkRequestOptions(options);
    this.#requireToken(name);
    const outcomes = await writeInBatches<Item>({
      items,
      prepare,
      batchSize: this.batchSize,
      dedupe,
      noun: "item",
      signal: options?.signal,
      logger: this.#logger,
      send: async (batch) =>
        parseBatchResultEntries((await this.#call(name, options, { body: batch })).body),
    });
    const result = toBatchResult(outcomes);
    this.#logSummary(name, result.results);
    return result;
  }

  #read<T>(parsed: T | string, method: string, url: string): T {
    if (typeof parsed === "string") throw this.#unexpected(method, url, parsed);
    return parsed;
  }

  #unexpected(method: string, url: string, problem: string): UnexpectedAnswerError {
    return new UnexpectedAnswerError(
      { method, url, environment: this.environment, service: "the order management service" },
      problem,
    );
  }

  /**
   * The transport, once `secrets` (a phrase, callback tokens) are registered
   * with this client: from now on they are scrubbed from its errors and logs,
   * and from those of every agent using its tools.
   */
  #httpWith(secrets: readonly string[]): HttpClient {
    this.#secrets.add(...secrets);
    return this.#http;
  }

  #requireToken(name: OrderRouteName): void {
    if (this.#hasToken || name === "createToken") return;
    throw new ConfigurationError(
      `${name} needs a token: create one with createToken(secretPhrase), then construct OrderClient with { token }`,
    );
  }

  #logSummary(operation: string, results: readonly { status: string }[]): void {
    const failed = results.filter((result) => result.status !== "success").length;
    this.#logger.info(
      { operation, submitted: results.length, succeeded: results.length - failed, failed },
      "bulk operation finished",
    );
  }
}
