import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import {
  Agent,
  ApiError,
  ConfigurationError,
  defineTool,
  FileRunStore,
  MessagingClient,
  OrderClient,
  orderTools,
  ReasonerClient,
} from "switchyard-agents";
import {
  type OrdersSimulator,
  type ReasonerSimulator,
  startOrdersSimulator,
  startReasonerSimulator,
} from "switchyard-agents/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { captureLogger } from "../helpers/capture-logger.js";
import { useTemporaryDirectories } from "./durable/durable-helpers.js";

// None of these has the shape of a JWT, a bearer header or an `sk-` key:
// only the registry can know them.
const reasonerKey = "rk-live-7d1e55c0a4b94f0c9e2d";
const secretPhrase = "violet tractor dances at noon";
const callbackToken = "cbtok-5521-amber-harbour";
const stateKey = "state-key-0123456789abcdef0123456789abcdef";

/** Every form of the secrets a test must not find, by kind. */
function secretsIn(text: string, secrets: Record<string, string>): string[] {
  return Object.entries(secrets)
    .filter(([, value]) => text.includes(value) || text.includes(encodeURIComponent(value)))
    .map(([kind]) => kind);
}

describe("a tool error quoting every kind of configured secret", () => {
  let reasoner: ReasonerSimulator;
  let orders: OrdersSimulator;
  const temporaryDirectory = useTemporaryDirectories();

  beforeAll(async () => {
    reasoner = await startReasonerSimulator({
      apiKey: reasonerKey,
      scenario: (request) =>
        request.messages.some((message) => message.role === "tool")
          ? "The tool failed; nothing else to do."
          : { toolCalls: [{ name: "quote_secrets", arguments: {} }] },
    });
    orders = await startOrdersSimulator();
  });
  afterAll(async () => {
    await Promise.all([reasoner.close(), orders.close()]);
  });

  it("reaches neither the model, nor the saved state, nor the logs, nor the errors", async () => {
    const client = new OrderClient({ baseUrl: orders.url, token: orders.token });
    // The client is given a secret phrase and a callback token in the ordinary way.
    await client.createToken(secretPhrase);
    await client.createCallbacks([
      { url: "https://hooks.example.com/orders", message_type: "orderEvent", token: callbackToken },
    ]);
    const secrets = {
      "reasoner key": reasonerKey,
      "service token": orders.token,
      "secret phrase": secretPhrase,
      "callback token": callbackToken,
      "state key": stateKey,
    };
    const quoteSecrets = defineTool({
      name: "quote_secrets",
      description: "Fails, quoting every secret.",
      parameters: z.object({}),
      readOnly: true,
      execute: (_args, context) => {
        const text = Object.entries(secrets)
          .map(([kind, value]) => `${kind}=${value} (${encodeURIComponent(value)})`)
          .join(", ");
        context.logger.warn({ detail: text }, `about to fail: ${text}`);
        const cause = Object.assign(new Error(`inner: ${text}`), { config: { header: text } });
        throw new Error(`outer: ${text}`, { cause });
      },
    });
    const directory = await temporaryDirectory();
    const log = captureLogger();
    const agent = new Agent({
      model: new ReasonerClient({ url: reasoner.url, apiKey: reasonerKey }),
      tools: [...orderTools(client), quoteSecrets],
      runStore: new FileRunStore({ directory }),
      stateKey,
      logger: log.logger,
    });

    const result = await agent.run("Quote the secrets.");

    expect(result.status).toBe("completed");
    const record = result.steps[0]?.toolCalls[0];
    expect(record?.status).toBe("failed");
    // The model was told the tool failed, with the secrets cut out.
    const told = JSON.stringify(reasoner.requests.map((request) => request.body));
    expect(told).toContain("outer: reasoner key=[redacted]");
    expect(secretsIn(told, secrets)).toEqual([]);
    const state = await readFile(new FileRunStore({ directory }).pathOf(result.runId!), "utf8");
    expect(state).toContain("[redacted]");
    expect(secretsIn(state, secrets)).toEqual([]);
    expect(log.text()).toContain("about to fail");
    expect(secretsIn(log.text(), secrets)).toEqual([]);
    const error = record && "error" in record ? record.error : undefined;
    expect(error?.name).toBe("ToolExecutionError");
    expect(inspect(error, { depth: 10 })).toContain("inner: reasoner key=[redacted]");
    expect(secretsIn(inspect(error, { depth: 10 }), secrets)).toEqual([]);
  });
});

describe("a service echoing its token", () => {
  let server: Server;
  let baseUrl: string;
  const token = "svc-token-8c0f2b7a9e61";

  beforeAll(async () => {
    server = createServer((request, response) => {
      const sent = request.headers.authorization ?? "";
      response.writeHead(500, {
        "content-type": "application/json",
        "x-debug-authorization": sent,
        "set-cookie": `session=${token}`,
      });
      response.end(JSON.stringify({ error: `upstream rejected ${sent}`, echoed: token }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/acme/api/v1`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("shows it nowhere in the ApiError: message, body, headers or cause", async () => {
    const log = captureLogger();
    const client = new MessagingClient({ baseUrl, token, maxRetries: 0, logger: log.logger });
    const error = await client.getInteraction("int_1").catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(500);
    expect(apiError.headers.get("x-debug-authorization")).toBe("Bearer [redacted]");
    expect(apiError.headers.get("set-cookie")).toBe("[redacted]");
    expect(apiError.body).toMatchObject({ echoed: "[redacted]" });
    expect(inspect(apiError, { depth: 10 })).not.toContain(token);
    expect(JSON.stringify([...apiError.headers])).not.toContain(token);
    expect(log.text()).not.toContain(token);
  });

  it("never quotes the credentials of a service address that does not parse", () => {
    let thrown: unknown;
    try {
      new MessagingClient({
        baseUrl: "https://admin:pa55-w0rd-long@messaging.example.com:99999/v1",
        token,
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect(inspect(thrown)).not.toContain("pa55-w0rd-long");
  });
});
