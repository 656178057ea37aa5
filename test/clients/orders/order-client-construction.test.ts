import nock from "nock";
import { describe, expect, it } from "vitest";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import { ConfigurationError, InternalServerError } from "../../../src/errors/index.js";
import {
  baseUrl,
  makeClient,
  origin,
  prefix,
  rejection,
  token,
  useNock,
} from "./order-test-setup.js";

useNock();

describe("OrderClient construction", () => {
  it("builds the base URL from host and account slug", () => {
    const client = new OrderClient({ host: "sandbox.example.com", accountSlug: "acme", token });
    expect(client.baseUrl).toBe("https://sandbox.example.com/acme/api/v1/");
    expect(client.environment).toBe("sandbox");
    expect(client.batchSize).toBe(100);
  });

  it("treats other hosts as production and loopback hosts as the sandbox over http", () => {
    expect(
      new OrderClient({ host: "api.example.com", accountSlug: "acme", token }).environment,
    ).toBe("production");
    const local = new OrderClient({ host: "127.0.0.1:8080", accountSlug: "acme", token });
    expect(local.baseUrl).toBe("http://127.0.0.1:8080/acme/api/v1/");
    expect(local.environment).toBe("sandbox");
  });

  it("lets an explicit environment win over the host name", () => {
    const client = new OrderClient({
      baseUrl: "https://sandbox.example.com/acme/api/v1",
      token,
      environment: "production",
    });
    expect(client.environment).toBe("production");
    expect(client.baseUrl).toBe("https://sandbox.example.com/acme/api/v1/");
  });

  it("refuses a token that is not a JWT without echoing it", () => {
    const secretish = "sk_live_4f9a8b7c6d5e4f3a2b1c";
    const error = (() => {
      try {
        new OrderClient({ baseUrl, token: secretish });
      } catch (caught) {
        return caught as Error;
      }
      throw new Error("expected a ConfigurationError");
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/does not look like a JWT/);
    expect(error.message).not.toContain(secretish);
    expect(error.message).not.toContain("sk_live");
  });

  it("names a bad address together with a bad token, so neither hides the other", () => {
    const error = (() => {
      try {
        new OrderClient({ baseUrl: "notaurl", token: "not-a-jwt" });
      } catch (caught) {
        return caught as ConfigurationError;
      }
      throw new Error("expected a ConfigurationError");
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.problems).toEqual([
      expect.stringMatching(/^baseUrl "notaurl\/?" is not a valid URL/),
      expect.stringMatching(/^token does not look like a JWT/),
    ]);
  });

  it("refuses a truncated JWT and a Bearer-prefixed one without echoing beyond eyJ", () => {
    const truncated = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0";
    expect(() => new OrderClient({ baseUrl, token: truncated })).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(/three dot-separated/),
      }),
    );
    expect(() => new OrderClient({ baseUrl, token: truncated })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("eyJhbGci") }),
    );
    expect(() => new OrderClient({ baseUrl, token: `Bearer ${token}` })).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(/starts with "Bearer "/),
      }),
    );
    expect(() => new OrderClient({ baseUrl, token: `Bearer ${token}` })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(token.slice(0, 10)) }),
    );
    expect(() => new OrderClient({ baseUrl, token: `${token}\n` })).toThrow(/whitespace/);
  });

  it("reports every bad option at once", () => {
    try {
      new OrderClient({
        host: "not a host",
        accountSlug: "a/b",
        token: "nope",
        batchSize: 0,
        // @ts-expect-error: checked at run time too
        environment: "staging",
        // @ts-expect-error: unknown operation
        routes: { listWidgets: { path: "/widgets" } },
      });
      throw new Error("expected a ConfigurationError");
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      const problems = (error as ConfigurationError).problems;
      expect(problems).toHaveLength(6);
      expect(problems.join("\n")).toMatch(/host must be/);
      expect(problems.join("\n")).toMatch(/accountSlug/);
      expect(problems.join("\n")).toMatch(/batchSize 0/);
      expect(problems.join("\n")).toMatch(/"staging" is not known/);
      expect(problems.join("\n")).toMatch(/routes.listWidgets/);
    }
  });

  it("refuses plain http to a remote host, a missing address, and both address forms", () => {
    expect(
      () => new OrderClient({ baseUrl: "http://orders.example.com/acme/api/v1/", token }),
    ).toThrow(/only https is allowed/);
    // @ts-expect-error: no address
    expect(() => new OrderClient({ token })).toThrow(/service address is required/);
    expect(
      () =>
        // @ts-expect-error: both forms
        new OrderClient({ baseUrl, host: "sandbox.example.com", accountSlug: "acme", token }),
    ).toThrow(/either baseUrl or host and accountSlug/);
  });

  it("sends requests to overridden routes", async () => {
    const scope = nock(origin).get(`${prefix}/v2/orders`).reply(200, { data: [] });
    const client = makeClient({ routes: { listOrders: { path: "/v2/orders" } } });
    expect(client.routes.listOrders).toEqual({ method: "GET", path: "/v2/orders" });
    await client.listOrders();
    expect(scope.isDone()).toBe(true);
  });

  it("without a token, creates one with no Authorization header and refuses other calls", async () => {
    let authorization: string | undefined = "unset";
    nock(origin)
      .post(`${prefix}/secrets`)
      .reply(function () {
        authorization = this.req.headers.authorization as string | undefined;
        return [200, { encrypted_token: token }];
      });
    const client = new OrderClient({ baseUrl });
    await expect(client.createToken("a long enough phrase")).resolves.toBe(token);
    expect(authorization).toBeUndefined();
    await expect(client.listOrders()).rejects.toThrow(/listOrders needs a token/);
  });

  it("names the environment in API errors", async () => {
    nock(origin)
      .post(`${prefix}/orders`)
      .reply(500, { error: { code: "E", message: "down" } });
    const error = await rejection(
      makeClient()
        .createOrders([{ customer_identifier: "A-1" }])
        .then((result) => {
          throw new Error(result.results[0]?.error_message);
        }),
    );
    expect(error.message).toContain("[sandbox]");
    nock(origin)
      .get(`${prefix}/orders`)
      .reply(500, { error: { code: "E", message: "down" } });
    const apiError = await rejection(makeClient({ maxRetries: 0 }).listOrders());
    expect(apiError).toBeInstanceOf(InternalServerError);
    expect((apiError as InternalServerError).environment).toBe("sandbox");
    expect(apiError.message).toContain("[sandbox]");
  });
});
