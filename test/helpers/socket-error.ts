/**
 * A socket failure as Node reports one: an Error carrying its code. (nock's
 * `replyWithError` with a plain object destroys a node:http request without
 * any "error" or "close" event, which no real socket does.)
 */
export function socketError(message: string, code = "ECONNRESET"): Error {
  return Object.assign(new Error(message), { code });
}
