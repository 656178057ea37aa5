import { SwitchyardError } from "../../errors/switchyard-error.js";
import type { RequestOptions } from "../request-options.js";
import { maximumPageSize } from "./build-list-query.js";
import type { ListPage, ListParams } from "./order-types.js";

/** A list call of one page, such as `client.listOrders`. */
export type ListFunction<T> = (
  params: ListParams,
  options?: RequestOptions,
) => Promise<ListPage<T>>;

/**
 * Walks every page of a list call and yields its records one by one. Pages
 * are `params.limit` long (default 100) starting at `params.offset`; the walk
 * stops at the first page shorter than the page size the service applied
 * (its envelope's `limit` when it states one, so a service that caps pages
 * lower than asked is still read to the end).
 * @example
 * for await (const order of iterateList(client.listOrders.bind(client), { status: "open" })) { ... }
 */
export async function* iterateList<T>(
  list: ListFunction<T>,
  params: ListParams = {},
  options?: RequestOptions,
): AsyncGenerator<T, void, undefined> {
  const pageSize = params.limit ?? maximumPageSize;
  let offset = params.offset ?? 0;
  let previousPage: string | undefined;
  for (;;) {
    const page = await list({ ...params, limit: pageSize, offset }, options);
    if (page.offset !== undefined && page.offset !== offset) {
      throw new SwitchyardError(
        `the service answered offset ${page.offset} when asked for offset ${offset}; stopping rather than reading pages twice or skipping some`,
      );
    }
    // A service that ignores `offset` and does not echo it answers the same
    // page forever: stop instead of looping.
    const fingerprint = page.data.length > 0 ? JSON.stringify(page.data) : undefined;
    if (fingerprint !== undefined && fingerprint === previousPage) {
      throw new SwitchyardError(
        `the service answered the same page for offset ${offset} as for the previous offset; it seems to ignore offset, so stopping rather than reading the same records forever`,
      );
    }
    previousPage = fingerprint;
    yield* page.data;
    const applied = page.limit !== undefined && page.limit > 0 ? page.limit : pageSize;
    if (page.data.length === 0 || page.data.length < applied) return;
    offset += page.data.length;
  }
}
