import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DocsClient } from "../../../src/clients/docs/docs-client.js";
import { pagePaths, readSiteFile } from "./petstore-site.js";

const origin = "https://docs.example.test";
const token = "docs-token-0123456789abcdef";
const base = "/cli/v1/documentations/doc_1";

function client() {
  return new DocsClient({ baseUrl: `${origin}/cli/v1`, token, initialRetryDelayMs: 1 });
}

/** Serves the fixture site, under `prefix`, with `overrides` replacing some files. */
function serveSite(prefix = "", overrides: Record<string, string> = {}, omit: string[] = []) {
  const files: Record<string, string> = {};
  for (const path of ["layout.json", "openapi.yaml", ...pagePaths, "logo.svg"]) {
    if (omit.includes(path)) continue;
    files[`${prefix}${path}`] =
      overrides[path] ?? (path === "logo.svg" ? "<svg/>" : readSiteFile(path));
  }
  const pulled: string[][] = [];
  const scope = nock(origin, { reqheaders: { authorization: `Bearer ${token}` } })
    .get(`${base}/manifest`)
    .reply(200, { files: Object.keys(files).map((path) => ({ path })) })
    .post(`${base}/docs/paths`)
    .times(2)
    .reply(200, (_uri, body) => {
      const paths = (body as { paths: string[] }).paths;
      pulled.push(paths);
      return { files: paths.map((path) => ({ path, title: path, content: files[path] })) };
    });
  return { scope, pulled };
}

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});

afterEach(() => {
  nock.cleanAll();
});

describe("DocsClient.checkSite", () => {
  it("pulls layout.json, then the spec it names and the pages, and finds nothing wrong", async () => {
    const { scope, pulled } = serveSite();
    await expect(client().checkSite("doc_1")).resolves.toEqual({ ok: true, findings: [] });
    expect(scope.isDone()).toBe(true);
    expect(pulled[0]).toEqual(["layout.json"]);
    expect([...pulled[1]!].sort()).toEqual(["openapi.yaml", ...pagePaths].sort());
  });

  it("reports the faults of the pulled site with paths relative to the layout", async () => {
    const layout = readSiteFile("layout.json").replace(
      '"GET /pets",',
      '"GET /pets",\n "POST /pets",',
    );
    serveSite("docs/", { "layout.json": layout });
    const result = await client().checkSite("doc_1", { layoutPath: "docs/layout.json" });
    expect(result.ok).toBe(false);
    expect(result.findings.map((item) => [item.code, item.where.file])).toEqual([
      ["operation-duplicate-page", "api-reference/create-pet.mdx"],
    ]);
  });

  it("reports a spec the layout names that the project lacks", async () => {
    serveSite("", {}, ["openapi.yaml"]);
    const result = await client().checkSite("doc_1");
    expect(result.findings).toEqual([
      expect.objectContaining({
        code: "spec-missing",
        where: { file: "layout.json", key: "api.openapi", line: 5 },
      }),
    ]);
  });

  it("reports a project without layout.json without pulling anything", async () => {
    nock(origin)
      .get(`${base}/manifest`)
      .reply(200, { files: [{ path: "index.mdx" }] });
    const result = await client().checkSite("doc_1");
    expect(result).toMatchObject({
      ok: false,
      findings: [{ code: "layout-missing", where: { file: "layout.json" } }],
    });
  });
});
