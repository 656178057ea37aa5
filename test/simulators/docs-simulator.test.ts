import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  type DocsSimulator,
  startDocsSimulator,
} from "../../src/simulators/docs/docs-simulator.js";
import { storefrontPlantedFaults } from "../../src/simulators/docs/storefront-files.js";

let docs: DocsSimulator;
beforeAll(async () => {
  docs = await startDocsSimulator({ token: "docs-test-token" });
});
afterAll(async () => {
  await docs.close();
});
beforeEach(() => {
  docs.reset();
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  token: string | null = docs.token,
) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${docs.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const isJson = response.headers.get("content-type")?.startsWith("application/json") ?? false;
  return {
    status: response.status,
    text,
    body: isJson ? (JSON.parse(text) as unknown) : undefined,
    headers: response.headers,
  };
}

interface PulledFile {
  path: string;
  title: string;
  content: string;
}

async function pull(paths: string[], documentationId = docs.storefrontId): Promise<PulledFile[]> {
  const { body } = await call("POST", `/documentations/${documentationId}/docs/paths`, { paths });
  return (body as { files: PulledFile[] }).files;
}

describe("docs simulator", () => {
  it("requires the bearer token and answers errors as plain text", async () => {
    const missing = await call("GET", "/auth/user", undefined, null);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(missing.text).toMatch(/bearer/i);
    expect((await call("GET", "/auth/user", undefined, "wrong")).status).toBe(401);
    const unknownRoute = await call("GET", "/nothing");
    expect(unknownRoute.status).toBe(404);
    expect(unknownRoute.headers.get("content-type")).toMatch(/^text\/plain/);
  });

  it("answers the current user and the projects", async () => {
    expect(docs.url).toBe(`http://${docs.host}/cli/v1`);
    expect((await call("GET", "/auth/user")).body).toEqual({
      id: expect.any(String),
      email: "dana.writer@storefront.example",
      name: "Dana Writer",
    });
    const { body } = await call("GET", "/documentations");
    const projects = (body as { documentations: { documentationId: string; name: string }[] })
      .documentations;
    expect(projects.map((project) => project.name)).toEqual(["Storefront API", "Partner Portal"]);
    expect(projects[0]?.documentationId).toBe(docs.storefrontId);
  });

  it("creates a project and refuses a second one of the same name", async () => {
    const created = await call("POST", "/documentations", { name: "Internal Tools" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      documentationId: expect.any(String),
      name: "Internal Tools",
    });
    expect((await call("POST", "/documentations", { name: "Internal Tools" })).status).toBe(409);
    expect((await call("POST", "/documentations", {})).status).toBe(400);
  });

  it("lists files with titles in the manifest", async () => {
    const { body } = await call("GET", `/documentations/${docs.storefrontId}/manifest`);
    const files = (body as { files: { path: string; title: string }[] }).files;
    expect(files.map((file) => file.path)).toEqual(
      expect.arrayContaining([
        "layout.json",
        "openapi.yaml",
        "support.mdx",
        "api-reference/orders/get-order.mdx",
      ]),
    );
    expect(files.find((file) => file.path === "support.mdx")?.title).toBe("Support");
    expect((await call("GET", "/documentations/unknown-id/manifest")).status).toBe(404);
  });

  it("pulls files and names every missing path in a 404", async () => {
    const [support] = await pull(["support.mdx"]);
    expect(support?.content).toContain("help@old-storefront.example");
    expect(support?.title).toBe("Support");
    const missing = await call("POST", `/documentations/${docs.storefrontId}/docs/paths`, {
      paths: ["support.mdx", "nope.mdx", "gone.mdx"],
    });
    expect(missing.status).toBe(404);
    expect(missing.text).toContain("nope.mdx");
    expect(missing.text).toContain("gone.mdx");
    expect(
      (await call("POST", `/documentations/${docs.storefrontId}/docs/paths`, { paths: [] })).status,
    ).toBe(400);
  });

  it("stores pushed files, says which were updated or created, and keeps the history", async () => {
    const [support] = await pull(["support.mdx"]);
    const content =
      support?.content.replace("help@old-storefront.example", "support@storefront.example") ?? "";
    const pushed = await call("POST", `/documentations/${docs.storefrontId}/docs/paths/push`, {
      files: [
        { path: "support.mdx", title: "Support", content },
        { path: "changelog.mdx", title: "Changelog", content: "---\ntitle: Changelog\n---\n" },
      ],
      message: "Replace the retired support address",
    });
    expect(pushed.body).toEqual({
      files: [
        { path: "support.mdx", status: "updated" },
        { path: "changelog.mdx", status: "created" },
      ],
      message: "Replace the retired support address",
    });
    const [after] = await pull(["support.mdx"]);
    expect(after?.content).toContain("support@storefront.example");
    expect(after?.content).not.toContain("help@old-storefront.example");
    const [push] = docs.pushes();
    expect(push?.message).toBe("Replace the retired support address");
    expect(push?.files[0]?.previousContent).toContain("help@old-storefront.example");
    expect(docs.file(docs.storefrontId, "changelog.mdx")?.title).toBe("Changelog");
  });

  it("refuses a push without a message or with an unsafe path, storing nothing", async () => {
    const url = `/documentations/${docs.storefrontId}/docs/paths/push`;
    const noMessage = await call("POST", url, {
      files: [{ path: "a.mdx", title: "A", content: "x" }],
    });
    expect(noMessage.status).toBe(400);
    expect(noMessage.text).toContain("message");
    const unsafe = await call("POST", url, {
      files: [
        { path: "ok.mdx", title: "Ok", content: "x" },
        { path: "../escape.mdx", title: "E", content: "x" },
      ],
      message: "m",
    });
    expect(unsafe.status).toBe(400);
    expect(unsafe.text).toContain("files[1].path");
    expect(docs.file(docs.storefrontId, "ok.mdx")).toBeUndefined();
    expect(docs.pushes()).toEqual([]);
  });

  it("seeds the Storefront project with the faults it declares", async () => {
    const [layoutFile, specFile, getOrder, refund] = await pull([
      "layout.json",
      "openapi.yaml",
      "api-reference/orders/get-order.mdx",
      "api-reference/refunds/create-refund.mdx",
    ]);
    const layout = JSON.parse(layoutFile?.content ?? "{}");
    const spec = parse(specFile?.content ?? "");
    expect(layout.api).toMatchObject({
      openapi: "openapi.yaml",
      auth: { method: "bearer" },
      playground: { display: "interactive", proxy: false },
    });
    expect(spec.openapi).toBe("3.1.0");
    const navigationPages: string[] = layout.navigation.languages[0].groups.flatMap(
      (group: { pages: string[] }) => group.pages,
    );
    expect(getOrder?.content).toContain('openapi: "GET /order/{orderId}"');
    expect(spec.paths["/order/{orderId}"]).toBeUndefined();
    expect(spec.paths["/orders/{orderId}"].get).toBeDefined();
    expect(spec.paths["/inventory/{sku}"].get["x-excluded"]).toBe(true);
    expect(navigationPages).toContain("GET /inventory/{sku}");
    expect(navigationPages).toContain("POST /refunds");
    expect(refund?.content).toContain('openapi: "POST /refunds"');
    expect(navigationPages).not.toContain("DELETE /orders/{orderId}");
    expect(spec.paths["/orders/{orderId}"].delete).toBeDefined();
    expect(storefrontPlantedFaults).toHaveLength(4);
  });

  it("seeds a second, fault-free project", async () => {
    const [layoutFile, specFile] = await pull(
      ["layout.json", "openapi.yaml"],
      docs.partnerPortalId,
    );
    const layout = JSON.parse(layoutFile?.content ?? "{}");
    const spec = parse(specFile?.content ?? "");
    for (const page of layout.navigation.languages[0].groups[1].pages as string[]) {
      const [method = "", path = ""] = page.split(" ");
      expect(spec.paths[path][method.toLowerCase()]).toBeDefined();
    }
  });

  it("uses the same ids for the same seed and injects faults", async () => {
    const again = await startDocsSimulator();
    try {
      expect(again.storefrontId).toBe(docs.storefrontId);
    } finally {
      await again.close();
    }
    docs.failNext({ method: "GET", path: "/documentations", status: 503 });
    const failed = await call("GET", "/documentations");
    expect(failed.status).toBe(503);
    expect(failed.headers.get("content-type")).toMatch(/^text\/plain/);
    expect((await call("GET", "/documentations")).status).toBe(200);
  });
});
