import { Writable } from "node:stream";
import nock from "nock";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ReasonerClient } from "../../../src/clients/reasoner/reasoner-client.js";
import {
  type ApiError,
  AuthenticationError,
  InternalServerError,
} from "../../../src/errors/index.js";
import { errorFamilies } from "../../helpers/error-families.js";
import {
  apiKey,
  expectedCompletion,
  fixtureBytes,
  rejection,
  simpleRequest,
} from "./reasoner-test-kit.js";

const origin = "https://reasoner.example.com";
const path = "/v1/chat/completions";

const completion = {
  id: "chatcmpl-n1",
  object: "chat.completion",
  created: 1760000000,
  model: "vendorA/v3",
  choices: [{ index: 0, message: { role: "assistant", content: "Oui." }, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};

function makeClient(options: { maxRetries?: number; logger?: pino.Logger } = {}) {
  return new ReasonerClient({
    url: `${origin}${path}`,
    apiKey,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 5,
    ...options,
  });
}

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});
afterEach(() => {
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
});

describe("ReasonerClient over the real fetch", () => {
  it("complete() POSTs to the url with the bearer key and returns the completion", async () => {
    const scope = nock(origin, { reqheaders: { authorization: `Bearer ${apiKey}` } })
      .post(path, JSON.parse(JSON.stringify({ ...simpleRequest, model: "vendorA/v3" })))
      .reply(200, completion, { "content-type": "application/json" });
    const answer = await makeClient().complete({ ...simpleRequest, model: "vendorA/v3" });
    expect(answer).toEqual(completion);
    expect(scope.isDone()).toBe(true);
  });

  it("stream() assembles an SSE answer read through undici", async () => {
    const scope = nock(origin)
      .post(path, (body) => body.stream === true && body.stream_options?.include_usage === true)
      .reply(200, Buffer.from(fixtureBytes("openai-split.sse")), {
        "content-type": "text/event-stream",
      });
    const answer = await makeClient().stream(simpleRequest).finalCompletion();
    expect(answer).toEqual(expectedCompletion("tool-calls.expected.json"));
    expect(scope.isDone()).toBe(true);
  });

  it.each(errorFamilies)(
    "maps %i to its ApiError subclass with status, method, url and body",
    async (status, errorClass) => {
      const body = { error: { message: `failure ${status}`, type: "invalid_request_error" } };
      nock(origin)
        .post(path)
        .times(3)
        .reply(status, body, { "content-type": "application/json", "retry-after": "0" });
      const error = await rejection(makeClient({ maxRetries: 0 }).complete(simpleRequest));
      expect(error).toBeInstanceOf(errorClass);
      expect(error).toMatchObject({ status, method: "POST", url: `${origin}${path}`, body });
      expect(error.message).toContain(`failure ${status}`);
    },
  );

  it("retries a 429 with Retry-After: 0, then succeeds", async () => {
    const scope = nock(origin)
      .post(path)
      .reply(429, { error: { message: "slow down" } }, { "retry-after": "0" })
      .post(path)
      .reply(200, completion);
    await expect(makeClient().complete(simpleRequest)).resolves.toEqual(completion);
    expect(scope.isDone()).toBe(true);
  });

  it("retries a streamed request answered 502 before its first event", async () => {
    const scope = nock(origin)
      .post(path)
      .reply(502, "bad gateway")
      .post(path)
      .reply(200, Buffer.from(fixtureBytes("reasoning-content.sse")), {
        "content-type": "text/event-stream",
      });
    const answer = await makeClient().stream(simpleRequest).finalCompletion();
    expect(answer).toEqual(expectedCompletion("reasoning.expected.json"));
    expect(scope.isDone()).toBe(true);
  });

  it("keeps the key out of logs and errors, even when the service echoes it", async () => {
    const chunks: string[] = [];
    const logger = pino(
      { level: "trace" },
      new Writable({
        write(chunk, _encoding, callback) {
          chunks.push(String(chunk));
          callback();
        },
      }),
    );
    nock(origin)
      .post(path)
      .reply(401, { error: { message: `invalid key ${apiKey}` } })
      .post(path)
      .reply(503, `upstream said Bearer ${apiKey}`)
      .post(path)
      .reply(503, `upstream said Bearer ${apiKey}`)
      .post(path)
      .reply(
        200,
        `data: {"choices":[{"index":0,"delta":{"content":"Zürich"}}]}\n\nevent: error\ndata: {"error":{"message":"key ${apiKey} refused"}}\n\n`,
        {
          "content-type": "text/event-stream",
        },
      );
    const client = makeClient({ logger, maxRetries: 1 });
    const errors = [
      await rejection(client.complete(simpleRequest)),
      await rejection(client.stream(simpleRequest).finalCompletion()),
      await rejection(client.stream(simpleRequest).finalCompletion()),
    ];
    expect(errors[0]).toBeInstanceOf(AuthenticationError);
    expect(errors[1]).toBeInstanceOf(InternalServerError);
    expect(errors[2]).toMatchObject({ name: "StreamError", kind: "provider_error" });
    for (const error of errors) {
      expect(error.message).not.toContain(apiKey);
      expect(JSON.stringify((error as ApiError).body ?? "")).not.toContain(apiKey);
    }
    const text = chunks.join("");
    expect(text).toContain("chat request");
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain("Zürich");
  });
});
