import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DocsClient } from "../../../src/clients/docs/docs-client.js";
import { ApiError, InternalServerError } from "../../../src/errors/api-error.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { AbortedError, TimeoutError } from "../../../src/errors/transport-errors.js";
import { UnexpectedAnswerError } from "../../../src/errors/unexpected-answer-error.js";
import { errorFamilies } from "../../helpers/error-families.js";

const origin = "https://docs.example.test";
const baseUrl = `${origin}/cli/v1`;
const token = "docs-token-0123456789abcdef";

function client(options: Partial<ConstructorParameters<typeof DocsClient>[0]> = {}) {
  return new DocsClient({ baseUrl, token, initialRetryDelayMs: 1, maxRetryDelayMs: 2, ...options });
}

function service() {
  return nock(origin, { reqheaders: { authorization: `Bearer ${token}` } });
}

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});

afterEach(() => {
  nock.cleanAll();
});

describe("DocsClient construction", () => {
  it("requires a base URL ending in /cli/v1 and suggests the fix", () => {
    expect(() => client({ baseUrl: `${origin}/api` })).toThrow(
      `baseUrl ${origin}/api must end with /cli/v1, the versioned root of the documentation CLI API: use ${origin}/api/cli/v1`,
    );
    expect(() => client({ baseUrl: `${origin}/cli` })).toThrow(`use ${origin}/cli/v1`);
    expect(() => client({ baseUrl: `${origin}/cli/v1/documentations` })).toThrow(
      `use ${origin}/cli/v1`,
    );
    expect(client({ baseUrl: `${origin}/cli/v1/` }).baseUrl).toBe(baseUrl);
  });

  it("rejects plain http except on loopback", () => {
    expect(() => client({ baseUrl: "http://docs.example.test/cli/v1" })).toThrow(/only https/);
    expect(client({ baseUrl: "http://127.0.0.1:4010/cli/v1" }).baseUrl).toBe(
      "http://127.0.0.1:4010/cli/v1",
    );
  });

  it("reports every bad option at once without echoing the token", () => {
    let caught: unknown;
    try {
      new DocsClient({ baseUrl: "ftp://x/cli/v1", token: "Bearer secret-value-123" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    const problems = (caught as ConfigurationError).problems;
    expect(problems).toHaveLength(2);
    expect(problems[1]).toMatch(/token contains whitespace/);
    expect((caught as Error).message).not.toContain("secret-value-123");
    expect(() => new DocsClient({ baseUrl, token: "" })).toThrow(/token is required/);
  });

  it("validates route overrides", () => {
    expect(() => client({ routes: { getManifest: { path: "/projects/{id}/files" } } })).toThrow(
      /lacks the \{documentationId\} placeholder/,
    );
    expect(() => client({ routes: { nope: { path: "/x" } } as never })).toThrow(
      /not a docs operation/,
    );
  });
});

describe("DocsClient endpoints", () => {
  it("getCurrentUser reads the user tied to the token", async () => {
    service()
      .get("/cli/v1/auth/user")
      .reply(200, { id: 42, email: "ana@example.com", name: "Ana", plan: "team" });
    await expect(client().getCurrentUser()).resolves.toEqual({
      id: "42",
      email: "ana@example.com",
      name: "Ana",
      plan: "team",
    });
  });

  it("listDocumentations accepts the envelope and a bare array", async () => {
    service()
      .get("/cli/v1/documentations")
      .reply(200, {
        documentations: [{ documentationId: "doc_1", name: "Public", url: "https://x" }],
      });
    await expect(client().listDocumentations()).resolves.toEqual([
      { documentationId: "doc_1", name: "Public", url: "https://x" },
    ]);
    service()
      .get("/cli/v1/documentations")
      .reply(200, [{ documentationId: "doc_2", name: "Internal" }]);
    await expect(client().listDocumentations()).resolves.toEqual([
      { documentationId: "doc_2", name: "Internal" },
    ]);
  });

  it("createDocumentation posts the name", async () => {
    service()
      .post("/cli/v1/documentations", { name: "Public API" })
      .matchHeader("content-type", "application/json")
      .reply(201, { documentationId: "doc_9", name: "Public API" });
    await expect(client().createDocumentation("Public API")).resolves.toEqual({
      documentationId: "doc_9",
      name: "Public API",
    });
  });

  it("getManifest encodes the id and keeps unknown fields", async () => {
    service()
      .get("/cli/v1/documentations/doc%2F1/manifest")
      .reply(200, { files: [{ path: "index.mdx", title: "Home", sha: "abc" }], revision: 7 });
    await expect(client().getManifest("doc/1")).resolves.toEqual({
      files: [{ path: "index.mdx", title: "Home", sha: "abc" }],
      revision: 7,
    });
  });

  it("pullFiles posts the paths", async () => {
    service()
      .post("/cli/v1/documentations/doc_1/docs/paths", { paths: ["index.mdx"] })
      .reply(200, { files: [{ path: "index.mdx", title: "Home", content: "# Home" }] });
    await expect(client().pullFiles("doc_1", ["index.mdx"])).resolves.toEqual({
      files: [{ path: "index.mdx", title: "Home", content: "# Home" }],
    });
  });

  it("pushFiles posts exactly path, title, content and the message", async () => {
    service()
      .post("/cli/v1/documentations/doc_1/docs/paths/push", {
        files: [{ path: "index.mdx", title: "Home", content: "# Home v2" }],
        message: "Update home",
      })
      .reply(200, { files: [{ path: "index.mdx", status: "updated" }], message: "Update home" });
    await expect(
      client().pushFiles(
        "doc_1",
        [{ path: "index.mdx", title: "Home", content: "# Home v2", extra: "not sent" }],
        "Update home",
      ),
    ).resolves.toEqual({
      files: [{ path: "index.mdx", status: "updated" }],
      message: "Update home",
    });
  });

  it("uses overridden routes", async () => {
    service().get("/cli/v1/me").reply(200, { id: "u1" });
    await expect(
      client({ routes: { getCurrentUser: { path: "/me" } } }).getCurrentUser(),
    ).resolves.toEqual({ id: "u1" });
  });

  it("throws UnexpectedAnswerError for an answer of the wrong shape", async () => {
    service().get("/cli/v1/documentations/doc_1/manifest").reply(200, { items: [] });
    const error = await client()
      .getManifest("doc_1")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedAnswerError);
    expect((error as Error).message).toContain(`GET ${baseUrl}/documentations/doc_1/manifest`);
  });
});

describe("DocsClient errors", () => {
  const families = errorFamilies;

  for (const [status, ErrorClass] of families) {
    it(`maps ${status} to ${ErrorClass.name} carrying the text body`, async () => {
      const body = `documentation doc_1: status ${status} explained`;
      service()
        .get("/cli/v1/documentations/doc_1/manifest")
        .reply(status, body, { "content-type": "text/plain", "x-request-id": "req-7" });
      const error = await client({ maxRetries: 0 })
        .getManifest("doc_1")
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ErrorClass);
      expect(error).toMatchObject({
        status,
        method: "GET",
        url: `${baseUrl}/documentations/doc_1/manifest`,
        body,
        bodyText: body,
        requestId: "req-7",
      });
      expect((error as Error).message).toContain(body);
    });
  }

  it("retries a read after 429 with Retry-After: 0", async () => {
    const scope = service()
      .get("/cli/v1/documentations")
      .reply(429, "slow down", { "retry-after": "0" })
      .get("/cli/v1/documentations")
      .reply(200, { documentations: [] });
    await expect(client().listDocumentations()).resolves.toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it("retries a push after 429 (nothing was processed) but never after 500", async () => {
    const files = [{ path: "a.mdx", title: "A", content: "a" }];
    const retried = service()
      .post("/cli/v1/documentations/doc_1/docs/paths/push")
      .reply(429, "rate limited", { "retry-after": "0" })
      .post("/cli/v1/documentations/doc_1/docs/paths/push")
      .reply(200, { files: [{ path: "a.mdx", status: "created" }] });
    await expect(client().pushFiles("doc_1", files, "Add A")).resolves.toMatchObject({
      files: [{ path: "a.mdx", status: "created" }],
    });
    expect(retried.isDone()).toBe(true);

    const once = service()
      .post("/cli/v1/documentations/doc_1/docs/paths/push")
      .reply(500, "storage failed")
      .post("/cli/v1/documentations/doc_1/docs/paths/push")
      .reply(200, { files: [] });
    await expect(client().pushFiles("doc_1", files, "Add A")).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(once.pendingMocks()).toHaveLength(1);
  });

  it("retries a pull (a read sent by POST) after 503", async () => {
    service()
      .post("/cli/v1/documentations/doc_1/docs/paths")
      .reply(503, "busy")
      .post("/cli/v1/documentations/doc_1/docs/paths")
      .reply(200, { files: [] });
    await expect(client().pullFiles("doc_1", ["a.mdx"])).resolves.toEqual({ files: [] });
  });

  it("keeps an ApiError for an unmapped status", async () => {
    service().get("/cli/v1/auth/user").reply(418, "teapot");
    await expect(client().getCurrentUser()).rejects.toSatisfy(
      (error: unknown) =>
        error instanceof ApiError && error.status === 418 && error.bodyText === "teapot",
    );
  });
});

describe("DocsClient request options", () => {
  it("stops at the caller's AbortSignal and honours a per-call timeout", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(client().getCurrentUser({ signal: controller.signal })).rejects.toBeInstanceOf(
      AbortedError,
    );
    service().get("/cli/v1/auth/user").delay(200).reply(200, {});
    await expect(
      client({ maxRetries: 0 }).getCurrentUser({ timeoutMs: 20 }),
    ).rejects.toBeInstanceOf(TimeoutError);
  });
});

describe("DocsClient input checks", () => {
  it("names every bad pushed file and sends nothing", async () => {
    const scope = service().post("/cli/v1/documentations/doc_1/docs/paths/push").reply(200, {});
    const error = await client()
      .pushFiles(
        "doc_1",
        [
          { path: "ok.mdx", title: "Ok", content: "fine" },
          { path: "a.mdx", content: "no title" } as never,
          { path: "ok.mdx", title: "Dup", content: 3 } as never,
        ],
        "Batch",
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems).toEqual([
      "files[1].title (a.mdx) must be a string (got undefined): pass the title the pull returned",
      'files[2].path "ok.mdx" is also files[0]: push each path once',
      "files[2].content (ok.mdx) must be a string (got a number)",
    ]);
    expect(scope.isDone()).toBe(false);
  });

  it("rejects an empty message, empty paths, a bad id and an empty name", async () => {
    const docs = client();
    await expect(
      docs.pushFiles("doc_1", [{ path: "a", title: "A", content: "" }], "  "),
    ).rejects.toThrow(/message must be a non-empty string/);
    await expect(docs.pullFiles("doc_1", [])).rejects.toThrow(/paths must be a non-empty array/);
    await expect(docs.pullFiles("doc_1", ["a.mdx", ""])).rejects.toThrow(/paths\[1\]/);
    await expect(docs.getManifest("..")).rejects.toThrow(/not a valid id/);
    await expect(docs.getManifest("")).rejects.toThrow(
      /documentationId must be a non-empty string/,
    );
    await expect(docs.createDocumentation("")).rejects.toThrow(/name must be a non-empty string/);
  });
});
