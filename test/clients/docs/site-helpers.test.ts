import { describe, expect, it } from "vitest";
import { closestPaths } from "../../../src/clients/docs/closest-paths.js";
import { parseFrontMatter } from "../../../src/clients/docs/front-matter.js";
import type { SpecOperation } from "../../../src/clients/docs/openapi-spec.js";
import { parseOperationReference } from "../../../src/clients/docs/operation-reference.js";
import { suggestOperation } from "../../../src/clients/docs/suggest-operation.js";

describe("parseFrontMatter", () => {
  it("reads the block, the body and each key's line", () => {
    const result = parseFrontMatter(
      '\uFEFF---\r\ntitle: Users\r\nopenapi: "GET /users"\r\n---\r\n# Users\r\n',
    );
    expect(result).toEqual({
      present: true,
      data: { title: "Users", openapi: "GET /users" },
      body: "# Users\r\n",
      keyLines: { title: 2, openapi: 3 },
    });
  });

  it("treats a page without a block as having no front matter", () => {
    expect(parseFrontMatter("# Title\n---\nnot front matter\n---\n")).toMatchObject({
      present: false,
      data: {},
    });
  });

  it("reports an unclosed block, bad YAML and a non-mapping block", () => {
    expect(parseFrontMatter("---\ntitle: x\n").error?.message).toMatch(/no closing ---/);
    expect(parseFrontMatter("---\ntitle: x\ntitle: y\n---\n").error).toMatchObject({ line: 3 });
    expect(parseFrontMatter("---\n- a\n- b\n---\n").error?.message).toMatch(/key: value/);
    expect(parseFrontMatter("---\n---\nbody").data).toEqual({});
  });
});

describe("parseOperationReference", () => {
  it("reads METHOD /path, a spec prefix and full URLs, and leaves page paths alone", () => {
    expect(parseOperationReference("GET /pets")).toEqual({
      method: "GET",
      target: "/pets",
      text: "GET /pets",
    });
    expect(parseOperationReference("v2.yaml post /pets")).toMatchObject({
      spec: "v2.yaml",
      method: "post",
    });
    expect(parseOperationReference("DELETE https://api.x.test/pets/{id}")).toMatchObject({
      target: "https://api.x.test/pets/{id}",
    });
    expect(parseOperationReference("guides/quickstart")).toBeUndefined();
    expect(parseOperationReference("list all pets")).toBeUndefined();
  });
});

describe("suggestOperation", () => {
  const operation = (method: string, path: string) =>
    ({ spec: "o.yaml", method, path, key: `${method} ${path}` }) as SpecOperation;
  const operations = [
    operation("GET", "/users"),
    operation("POST", "/users"),
    operation("GET", "/users/{userId}"),
  ];

  it("names the difference it forgives", () => {
    expect(suggestOperation("GET", "/Users", operations)).toMatchObject({
      operation: { key: "GET /users" },
      reason: "paths are case-sensitive",
    });
    expect(suggestOperation("GET", "/user/{id}", operations)?.reason).toBe(
      "singular and plural differ (users); path parameter names must match the spec's ({userId})",
    );
    expect(suggestOperation("PUT", "/users", operations)?.reason).toBe(
      "the spec has GET on this path, not PUT",
    );
    expect(suggestOperation("GET", "users", operations)?.reason).toBe("paths start with /");
  });

  it("falls back to edit distance and gives up when nothing is near", () => {
    expect(suggestOperation("GET", "/usrs/{userId}", operations)?.operation.key).toBe(
      "GET /users/{userId}",
    );
    expect(suggestOperation("GET", "/invoices/{invoiceId}/lines", operations)).toBeUndefined();
  });
});

describe("closestPaths", () => {
  it("ranks shared segments and small edits first, at most three", () => {
    const paths = [
      "index.mdx",
      "guides/install.mdx",
      "guides/quick-start.mdx",
      "guides/faq.mdx",
      "api/pets.mdx",
    ];
    const result = closestPaths("guides/quickstart.md", paths);
    expect(result[0]).toBe("guides/quick-start.mdx");
    expect(result).toHaveLength(3);
    expect(result).not.toContain("api/pets.mdx");
    expect(closestPaths("changelog.mdx", paths)).toEqual([]);
  });
});
