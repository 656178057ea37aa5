import nock from "nock";
import { afterEach, beforeAll, expect, it } from "vitest";
import { DocsClient } from "../../../src/clients/docs/docs-client.js";
import { captureLogger } from "../../helpers/capture-logger.js";

const origin = "https://docs.example.test";
const token = "docs-secret-token-9f8e7d6c5b4a";

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});

afterEach(() => {
  nock.cleanAll();
});

it("never logs the token or puts it in errors, across successes, retries and failures", async () => {
  const { logger, text: captured } = captureLogger();
  const docs = new DocsClient({
    baseUrl: `${origin}/cli/v1`,
    token,
    logger,
    initialRetryDelayMs: 1,
  });
  nock(origin)
    .get("/cli/v1/auth/user")
    .reply(200, { id: "u1" })
    .get("/cli/v1/documentations")
    .reply(429, "slow down", { "retry-after": "0" })
    .get("/cli/v1/documentations")
    .reply(200, [])
    .get("/cli/v1/documentations/doc_1/manifest")
    .reply(401, `token ${token} is not valid here`)
    .post("/cli/v1/documentations/doc_1/docs/paths/push")
    .reply(200, { files: [{ path: "a.mdx", status: "updated" }] })
    .post("/cli/v1/documentations")
    .reply(403, { error: { message: `Bearer ${token} may not create projects` } });

  const messages: string[] = [];
  await docs.getCurrentUser();
  await docs.listDocumentations();
  await docs
    .getManifest("doc_1")
    .catch((error: Error) => messages.push(error.message, JSON.stringify(error)));
  await docs.pushFiles("doc_1", [{ path: "a.mdx", title: "A", content: "a" }], "Edit A");
  await docs.createDocumentation("New").catch((error: Error & { bodyText?: string }) => {
    messages.push(error.message, error.bodyText ?? "");
  });

  expect(captured()).toContain("docs-client");
  expect(captured()).toContain("request failed, retrying");
  expect(captured()).toContain("pushing files");
  expect(messages).toHaveLength(4);
  expect(messages[0]).toContain("[redacted]");
  for (const text of [captured(), ...messages]) expect(text).not.toContain(token);
});
