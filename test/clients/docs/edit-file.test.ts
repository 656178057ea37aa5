import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DocsClient } from "../../../src/clients/docs/docs-client.js";
import { DocsPathNotFoundError } from "../../../src/clients/docs/docs-path-not-found-error.js";
import { DocsTextNotFoundError } from "../../../src/clients/docs/docs-text-not-found-error.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";

const origin = "https://docs.example.test";
const token = "docs-token-0123456789abcdef";
const manifestPath = "/cli/v1/documentations/doc_1/manifest";
const pullPath = "/cli/v1/documentations/doc_1/docs/paths";
const pushPath = "/cli/v1/documentations/doc_1/docs/paths/push";
const manifest = {
  files: [
    { path: "index.mdx", title: "Home" },
    { path: "guides/quick-start.mdx", title: "Quickstart" },
    { path: "guides/install.mdx", title: "Install" },
    { path: "api-reference/create-pet.mdx", title: "Create a pet" },
    { path: "layout.json" },
  ],
};
const quickstart = "---\ntitle: Quickstart\n---\nInstall v1.2 first. Then v1.2 again.\n";

function client() {
  return new DocsClient({ baseUrl: `${origin}/cli/v1`, token, initialRetryDelayMs: 1 });
}

function service() {
  return nock(origin, { reqheaders: { authorization: `Bearer ${token}` } });
}

function manifestAndPull(content = quickstart) {
  return service()
    .get(manifestPath)
    .reply(200, manifest)
    .post(pullPath, { paths: ["guides/quick-start.mdx"] })
    .reply(200, { files: [{ path: "guides/quick-start.mdx", title: "Quickstart", content }] });
}

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});

afterEach(() => {
  nock.cleanAll();
});

describe("DocsClient.editFile", () => {
  it("reads the manifest, pulls the file and pushes the edited content", async () => {
    const reads = manifestAndPull();
    const push = service()
      .post(pushPath, {
        files: [
          {
            path: "guides/quick-start.mdx",
            title: "Quickstart",
            content: "---\ntitle: Quickstart\n---\nInstall v1.3 first. Then v1.2 again.\n",
          },
        ],
        message: "Bump version",
      })
      .reply(200, {
        files: [{ path: "guides/quick-start.mdx", status: "updated" }],
        message: "Bump version",
      });
    await expect(
      client().editFile(
        "doc_1",
        "guides/quick-start.mdx",
        { find: "v1.2", replace: "v1.3" },
        "Bump version",
      ),
    ).resolves.toEqual({
      path: "guides/quick-start.mdx",
      changed: true,
      pushed: true,
      status: "updated",
    });
    expect(reads.isDone()).toBe(true);
    expect(push.isDone()).toBe(true);
  });

  it("replaces every occurrence with all: true and keeps $ patterns literal", async () => {
    manifestAndPull();
    let pushed: unknown;
    service()
      .post(pushPath, (body) => {
        pushed = body;
        return true;
      })
      .reply(200, { files: [{ path: "guides/quick-start.mdx", status: "updated" }] });
    await client().editFile(
      "doc_1",
      "./guides/quick-start.mdx",
      { find: "v1.2", replace: "$&-$1", all: true },
      "x",
    );
    expect(pushed).toMatchObject({
      files: [{ content: "---\ntitle: Quickstart\n---\nInstall $&-$1 first. Then $&-$1 again.\n" }],
    });
  });

  it("accepts an async function edit that receives the file", async () => {
    manifestAndPull();
    const push = service().post(pushPath).reply(200, {});
    const result = await client().editFile(
      "doc_1",
      "guides/quick-start.mdx",
      async (content, file) => `${content}\nSee ${file.title}.\n`,
      "Append",
    );
    expect(result).toEqual({ path: "guides/quick-start.mdx", changed: true, pushed: true });
    expect(push.isDone()).toBe(true);
  });

  it("names the closest paths when the path is not in the manifest, and pulls nothing", async () => {
    const scope = service()
      .get(manifestPath)
      .reply(200, manifest)
      .post(pullPath)
      .reply(200, { files: [] });
    const error = await client()
      .editFile("doc_1", "guides/quickstart.md", { find: "a", replace: "b" }, "x")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DocsPathNotFoundError);
    const notFound = error as DocsPathNotFoundError;
    expect(notFound.suggestions[0]).toBe("guides/quick-start.mdx");
    expect(notFound.suggestions.length).toBeLessThanOrEqual(3);
    expect(notFound.message).toContain(
      '"guides/quickstart.md" is not in the manifest of documentation doc_1',
    );
    expect(notFound.message).toContain('Did you mean "guides/quick-start.mdx"');
    expect(scope.pendingMocks()).toHaveLength(1);
  });

  it("says the text was not found, naming the path, and pushes nothing", async () => {
    manifestAndPull();
    const push = service().post(pushPath).reply(200, {});
    const error = await client()
      .editFile("doc_1", "guides/quick-start.mdx", { find: "V1.2", replace: "v1.3" }, "x")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DocsTextNotFoundError);
    expect((error as Error).message).toContain(
      "The text to find was not found in guides/quick-start.mdx",
    );
    expect(push.isDone()).toBe(false);
  });

  it("pushes nothing when the edit changes nothing", async () => {
    const reads = manifestAndPull();
    const push = service().post(pushPath).reply(200, {});
    await expect(
      client().editFile(
        "doc_1",
        "guides/quick-start.mdx",
        { find: "v1.2", replace: "v1.2" },
        "No-op",
      ),
    ).resolves.toEqual({ path: "guides/quick-start.mdx", changed: false, pushed: false });
    expect(reads.isDone()).toBe(true);
    expect(push.isDone()).toBe(false);
  });

  it("rejects a bad edit or message before any request", async () => {
    const scope = service().get(manifestPath).reply(200, manifest);
    await expect(
      client().editFile("doc_1", "index.mdx", { find: "", replace: "x" }, "m"),
    ).rejects.toThrow(/edit.find must be the non-empty text/);
    await expect(client().editFile("doc_1", "index.mdx", (c) => c, "")).rejects.toBeInstanceOf(
      ConfigurationError,
    );
    expect(scope.isDone()).toBe(false);
  });

  it("rejects an edit function that returns something other than a string", async () => {
    manifestAndPull();
    const push = service().post(pushPath).reply(200, {});
    await expect(
      client().editFile("doc_1", "guides/quick-start.mdx", (() => undefined) as never, "m"),
    ).rejects.toThrow(/must return the new content as a string/);
    expect(push.isDone()).toBe(false);
  });
});
