import {
  type BodyReader,
  checkDeclaredLength,
  RedirectSignal,
  ResponseTooLargeSignal,
  type Transport,
  type TransportResponse,
} from "./transport.js";

/**
 * The transport over a caller's `fetch` (the `fetch` option): for a test
 * double, a proxy-aware or instrumented fetch. Its pooling is the fetch's
 * own; the body is read no further than `maxResponseBytes` all the same.
 */
export function createFetchTransport(fetchImplementation: typeof globalThis.fetch): Transport {
  return async (request) => {
    request.onConnection();
    const response = await fetchImplementation(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      signal: request.signal,
      // A followed redirect would send the body and the headers (a gateway
      // key) to another origin, maybe over plain http, and take its answer
      // as the service's: the 3xx comes back as the answer instead.
      redirect: "manual",
    });
    if (response.redirected || response.type === "opaqueredirect") {
      // A fetch that follows redirects all the same, or hides where to.
      response.body?.cancel().catch(() => {});
      throw new RedirectSignal(response.redirected ? response.url : undefined);
    }
    const tooLarge = checkDeclaredLength(
      response.headers.get("content-length"),
      request.maxResponseBytes,
    );
    if (tooLarge) {
      response.body?.cancel().catch(() => {});
      throw tooLarge;
    }
    return new FetchResponse(response, request.maxResponseBytes);
  };
}

class FetchResponse implements TransportResponse {
  readonly #response: Response;
  readonly #limit: number;

  constructor(response: Response, limit: number) {
    this.#response = response;
    this.#limit = limit;
  }

  get status(): number {
    return this.#response.status;
  }

  get headers(): Headers {
    return this.#response.headers;
  }

  header(name: string): string | undefined {
    return this.#response.headers.get(name) ?? undefined;
  }

  async text(): Promise<string> {
    // Bytes are kept as they come and decoded once at the end: a body cut
    // off at the cap leaves no half-built text behind.
    const reader = this.reader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const result = await reader.read();
      if (result.done) break;
      chunks.push(result.value);
      size += result.value.byteLength;
    }
    return Buffer.concat(chunks, size).toString("utf8");
  }

  reader(): BodyReader {
    const body = this.#response.body;
    if (!body) {
      return { read: async () => ({ done: true }), cancel: () => {} };
    }
    const reader = body.getReader();
    const limit = this.#limit;
    let size = 0;
    const cancel = () => {
      reader.cancel().catch(() => {});
    };
    return {
      async read() {
        const result = await reader.read();
        if (result.done) return { done: true };
        size += result.value.byteLength;
        if (size > limit) {
          cancel();
          throw new ResponseTooLargeSignal(limit);
        }
        return { done: false, value: result.value };
      },
      cancel,
    };
  }

  cancel(): void {
    this.#response.body?.cancel().catch(() => {});
  }
}
