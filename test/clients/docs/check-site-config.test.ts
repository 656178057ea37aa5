import { describe, expect, it } from "vitest";
import { checkSiteConfig } from "../../../src/clients/docs/check-site-config.js";
import { DocsClient } from "../../../src/clients/docs/docs-client.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { petstoreSite, readSiteFile, replacing } from "./petstore-site.js";

function codes(result: ReturnType<typeof checkSiteConfig>) {
  return result.findings.map((finding) => `${finding.severity}:${finding.code}`);
}

describe("checkSiteConfig on a clean site", () => {
  it("is ok with no findings", () => {
    expect(checkSiteConfig(petstoreSite())).toEqual({ ok: true, findings: [] });
  });

  it("accepts a parsed layout, parsed spec and parsed front matter", () => {
    const site = petstoreSite();
    const result = checkSiteConfig({
      layout: JSON.parse(site.layout as string),
      openapi: {
        "./openapi.yaml": {
          openapi: "3.1.0",
          paths: { "/pets": { get: {}, post: {} }, "/pets/{petId}": { get: {}, delete: {} } },
        },
      },
      pages: [
        { path: "index.mdx", frontMatter: { title: "Home" } },
        { path: "guides/quickstart.mdx", frontMatter: { title: "Quickstart" } },
        { path: "api-reference/create-pet.mdx", frontMatter: { openapi: "POST /pets" } },
      ],
    });
    expect(result).toEqual({ ok: true, findings: [] });
  });
});

describe("DocsClient.checkSiteConfig", () => {
  it("checks a site the caller holds, sending nothing", () => {
    const sent: string[] = [];
    const docs = new DocsClient({
      baseUrl: "https://docs.example/cli/v1",
      token: "docs-token",
      fetch: async (input) => {
        sent.push(String(input));
        return new Response("unexpected", { status: 500 });
      },
    });
    const site = petstoreSite();
    expect(docs.checkSiteConfig(site)).toEqual({ ok: true, findings: [] });
    const broken = docs.checkSiteConfig({ ...site, openapi: {} });
    expect(broken.ok).toBe(false);
    expect(codes(broken)[0]).toMatch(/^error:spec-/);
    expect(sent).toEqual([]);
  });
});

describe("fault 1: the spec is invalid or absent", () => {
  it("reports a spec file that does not exist, at the layout key naming it", () => {
    const result = checkSiteConfig({
      ...petstoreSite(),
      openapi: {},
      files: ["specs/openapi.yaml", "index.mdx"],
    });
    expect(result.ok).toBe(false);
    expect(result.findings[0]).toMatchObject({
      severity: "error",
      code: "spec-missing",
      where: { file: "layout.json", key: "api.openapi", line: 5 },
    });
    expect(result.findings[0]!.fix).toContain('"specs/openapi.yaml"');
    // References to operations of the absent spec are not reported a second time.
    expect(codes(result).filter((code) => code.includes("operation"))).toEqual([]);
  });

  it("reports YAML that does not parse, with its line", () => {
    const result = checkSiteConfig(
      petstoreSite({
        openapi: replacing(
          "      summary: List pets",
          "      summary: List pets\n     bad: [indent",
        ),
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({
      code: "spec-unparsable",
      where: { file: "openapi.yaml" },
    });
    expect(result.findings[0]!.where.line).toBeGreaterThanOrEqual(11);
  });

  it("reports a Swagger 2.0 file as not OpenAPI 3.x", () => {
    const result = checkSiteConfig(
      petstoreSite({ openapi: replacing("openapi: 3.0.3", 'swagger: "2.0"') }),
    );
    expect(result.findings).toEqual([
      expect.objectContaining({
        code: "spec-not-openapi-3",
        where: { file: "openapi.yaml", key: "swagger", line: 1 },
      }),
    ]);
    expect(result.findings[0]!.fix).toMatch(/Convert/);
  });

  it("reports a spec without paths", () => {
    const spec = "openapi: 3.1.0\ninfo:\n  title: Petstore\n  version: 1.0.0\npaths: {}\n";
    const result = checkSiteConfig({ ...petstoreSite(), openapi: { "openapi.yaml": spec } });
    expect(result.findings).toEqual([
      expect.objectContaining({
        code: "spec-no-paths",
        where: { file: "openapi.yaml", key: "paths", line: 5 },
      }),
    ]);
  });
});

describe("fault 2: metadata does not match an operation exactly", () => {
  it("suggests the spec's path for a trailing slash in page metadata", () => {
    const result = checkSiteConfig(
      petstoreSite({
        pages: {
          "api-reference/create-pet.mdx": replacing("openapi: POST /pets", "openapi: POST /pets/"),
        },
      }),
    );
    expect(result.ok).toBe(false);
    const [finding] = result.findings;
    expect(finding).toMatchObject({
      severity: "error",
      code: "page-operation-not-found",
      where: {
        file: "api-reference/create-pet.mdx",
        key: "openapi",
        line: 4,
        operation: "POST /pets/",
      },
    });
    expect(finding!.fix).toBe('Write "POST /pets" (the spec\'s path has no trailing slash).');
  });

  it("names a lower-case method, a singular segment and a renamed parameter in navigation", () => {
    const result = checkSiteConfig(
      petstoreSite({ layout: replacing('"GET /pets/{petId}"', '"get /pet/{id}"') }),
    );
    const finding = result.findings.find((item) => item.code === "navigation-operation-not-found");
    expect(finding?.where).toMatchObject({
      file: "layout.json",
      key: "navigation.languages[0].groups[1].pages[2]",
    });
    expect(finding?.fix).toContain('"GET /pets/{petId}"');
    expect(finding?.fix).toContain("the method must be upper case");
    expect(finding?.fix).toContain("singular and plural differ");
    expect(finding?.fix).toContain("path parameter names must match");
  });

  it("reads api metadata with a full URL against api.baseUrl", () => {
    const good = checkSiteConfig(
      petstoreSite({
        pages: {
          "api-reference/create-pet.mdx": replacing(
            "openapi: POST /pets",
            "api: POST https://api.petstore.example/v1/pets",
          ),
        },
      }),
    );
    expect(good).toEqual({ ok: true, findings: [] });
    const bad = checkSiteConfig(
      petstoreSite({
        pages: {
          "api-reference/create-pet.mdx": replacing(
            "openapi: POST /pets",
            "api: POST https://api.petstore.example/v1/Pets",
          ),
        },
      }),
    );
    expect(bad.findings[0]).toMatchObject({
      severity: "warning",
      code: "page-api-not-in-spec",
      where: { key: "api" },
    });
    expect(bad.findings[0]!.fix).toContain("paths are case-sensitive");
  });

  it("takes an api page on another host as a page of another API, not a duplicate", () => {
    // The host's own POST /pets keeps its hand-written page; a page for a
    // partner's POST /pets is another endpoint with the same path.
    const result = checkSiteConfig(
      petstoreSite({
        extraPages: [
          {
            path: "api-reference/partner-create-pet.mdx",
            content: "---\ntitle: Partner pets\napi: POST https://partner.example/pets\n---\n",
          },
        ],
      }),
    );
    expect(result).toEqual({ ok: true, findings: [] });
  });

  it("still matches an api page on the site's own host by its path after the base", () => {
    const result = checkSiteConfig(
      petstoreSite({
        extraPages: [
          {
            path: "api-reference/create-pet-again.mdx",
            content: "---\ntitle: Again\napi: POST https://API.petstore.example/v1/pets\n---\n",
          },
        ],
      }),
    );
    expect(result.ok).toBe(true);
    expect(result.findings).toEqual([]);
  });

  it("does not call an api page blank when the spec lacks its operation", () => {
    const result = checkSiteConfig(
      petstoreSite({
        extraPages: [
          {
            path: "api-reference/adopt.mdx",
            content: "---\ntitle: Adopt\napi: POST /adoptions\n---\n",
          },
        ],
      }),
    );
    expect(result.ok).toBe(true);
    expect(result.findings).toHaveLength(1);
    const [only] = result.findings;
    expect(only).toMatchObject({
      severity: "warning",
      code: "page-api-not-in-spec",
      where: { file: "api-reference/adopt.mdx", key: "api", operation: "POST /adoptions" },
    });
    expect(only!.message).not.toContain("blank");
    expect(only!.message).toContain("playground built from its own metadata");
  });

  it("still calls an openapi page blank when the spec lacks its operation", () => {
    const result = checkSiteConfig(
      petstoreSite({
        extraPages: [
          {
            path: "api-reference/adopt.mdx",
            content: "---\ntitle: Adopt\nopenapi: POST /adoptions\n---\n",
          },
        ],
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.findings[0]).toMatchObject({
      severity: "error",
      code: "page-operation-not-found",
    });
    expect(result.findings[0]!.message).toContain("blank");
  });

  it("reports metadata that is not METHOD /path", () => {
    const result = checkSiteConfig(
      petstoreSite({
        pages: {
          "api-reference/create-pet.mdx": replacing("openapi: POST /pets", "openapi: create a pet"),
        },
      }),
    );
    expect(codes(result)).toContain("error:page-operation-malformed");
  });

  it("reports a spec-name prefix that names no spec", () => {
    const result = checkSiteConfig(
      petstoreSite({
        pages: {
          "api-reference/create-pet.mdx": replacing(
            "openapi: POST /pets",
            "openapi: v2.yaml POST /pets",
          ),
        },
      }),
    );
    expect(result.findings[0]).toMatchObject({
      code: "spec-missing",
      where: { file: "api-reference/create-pet.mdx" },
    });
    expect(result.findings[0]!.fix).toContain('"openapi.yaml"');
  });

  it("accepts a prefix naming the spec by file name or stem", () => {
    const result = checkSiteConfig(
      petstoreSite({
        pages: {
          "api-reference/create-pet.mdx": replacing(
            "openapi: POST /pets",
            "openapi: openapi POST /pets",
          ),
        },
      }),
    );
    expect(result).toEqual({ ok: true, findings: [] });
  });
});

describe("fault 3: a navigation filter leaves an operation out", () => {
  it("reports the operation no group lists, pointing at the group's pages", () => {
    const result = checkSiteConfig(
      petstoreSite({ layout: replacing(',\n              "DELETE /pets/{petId}"', "") }),
    );
    expect(result.ok).toBe(false);
    expect(result.findings).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "operation-not-in-navigation",
        where: {
          file: "layout.json",
          key: "navigation.languages[0].groups[1].pages",
          line: 24,
          operation: "DELETE /pets/{petId}",
        },
      }),
    ]);
    expect(result.findings[0]!.message).toContain('"API reference"');
    expect(result.findings[0]!.fix).toContain("x-excluded");
  });

  it("accepts the omission when the operation is x-excluded", () => {
    const result = checkSiteConfig(
      petstoreSite({
        layout: replacing(',\n              "DELETE /pets/{petId}"', ""),
        openapi: replacing(
          "      summary: Delete a pet",
          "      summary: Delete a pet\n      x-excluded: true",
        ),
      }),
    );
    expect(result).toEqual({ ok: true, findings: [] });
  });

  it("treats a group with openapi and no operation entries as generating every operation", () => {
    const layout = JSON.parse(readSiteFile("layout.json"));
    layout.navigation.languages[0].groups[1] = { group: "API reference", openapi: "openapi.yaml" };
    const site = petstoreSite();
    const result = checkSiteConfig({ ...site, layout, pages: site.pages!.slice(0, 2) });
    expect(result).toEqual({ ok: true, findings: [] });
  });

  it("warns when navigation never shows the configured spec", () => {
    const layout = JSON.parse(readSiteFile("layout.json"));
    layout.navigation.languages[0].groups.pop();
    const site = petstoreSite();
    const result = checkSiteConfig({ ...site, layout, pages: site.pages!.slice(0, 2) });
    expect(result.ok).toBe(true);
    expect(result.findings).toEqual([
      expect.objectContaining({
        severity: "warning",
        code: "spec-not-in-navigation",
        where: { file: "layout.json", key: "api.openapi" },
      }),
    ]);
  });
});

describe("fault 4: x-hidden and x-excluded", () => {
  it("reports an x-hidden operation that navigation lists: its entry is missing from the sidebar", () => {
    const result = checkSiteConfig(
      petstoreSite({
        openapi: replacing(
          "      summary: Get a pet",
          "      summary: Get a pet\n      x-hidden: true",
        ),
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.findings).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "operation-hidden",
        where: {
          file: "layout.json",
          key: "navigation.languages[0].groups[1].pages[2]",
          line: 27,
          operation: "GET /pets/{petId}",
        },
      }),
    ]);
    expect(result.findings[0]!.message).toContain("openapi.yaml line 46");
    expect(result.findings[0]!.message).toContain("reachable by link only");
    expect(result.findings[0]!.fix).toContain("paths./pets/{petId}.get.x-hidden");
  });

  it("reports an x-hidden operation that a page names, as an error at the page", () => {
    const result = checkSiteConfig(
      petstoreSite({
        openapi: replacing(
          "      summary: Create a pet",
          "      summary: Create a pet\n      x-hidden: true",
        ),
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.findings).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "operation-hidden",
        where: expect.objectContaining({
          file: "api-reference/create-pet.mdx",
          key: "openapi",
          operation: "POST /pets",
        }),
      }),
    ]);
    expect(result.findings[0]!.fix).toContain(
      "remove the openapi metadata from api-reference/create-pet.mdx",
    );
  });

  it("reports an x-excluded operation that navigation lists", () => {
    const result = checkSiteConfig(
      petstoreSite({
        openapi: replacing(
          "      summary: List pets",
          "      summary: List pets\n      x-excluded: true",
        ),
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.findings).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "operation-excluded",
        where: {
          file: "layout.json",
          key: "navigation.languages[0].groups[1].pages[0]",
          line: 25,
          operation: "GET /pets",
        },
      }),
    ]);
    expect(result.findings[0]!.message).toContain("no page is generated");
  });

  it("reports an x-excluded operation a page names, flag set on the path item", () => {
    const result = checkSiteConfig(
      petstoreSite({ openapi: replacing("  /pets:\n", "  /pets:\n    x-excluded: true\n") }),
    );
    const pageFinding = result.findings.find(
      (item) => item.where.file === "api-reference/create-pet.mdx",
    );
    expect(pageFinding).toMatchObject({
      code: "operation-excluded",
      where: { key: "openapi", operation: "POST /pets" },
    });
    expect(pageFinding!.fix).toContain("paths./pets.x-excluded");
  });
});

describe("fault 5: a generated and a hand-written page for one operation", () => {
  it("reports the hand-written page when navigation also lists the operation", () => {
    const result = checkSiteConfig(
      petstoreSite({
        layout: replacing('"GET /pets",', '"GET /pets",\n              "POST /pets",'),
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.findings).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "operation-duplicate-page",
        where: {
          file: "api-reference/create-pet.mdx",
          key: "openapi",
          line: 4,
          operation: "POST /pets",
        },
      }),
    ]);
    expect(result.findings[0]!.fix).toContain('remove "POST /pets"');
  });

  it("reports a hand-written page for an operation a whole-spec group generates", () => {
    const layout = JSON.parse(readSiteFile("layout.json"));
    layout.navigation.languages[0].groups[1] = { group: "API reference", openapi: "openapi.yaml" };
    layout.navigation.languages[0].groups[0].pages.push("api-reference/create-pet");
    const result = checkSiteConfig({ ...petstoreSite(), layout });
    expect(codes(result)).toEqual(["error:operation-duplicate-page"]);
  });
});

describe("layout keys", () => {
  it("reports unknown enumerations with the closest value and wrong types", () => {
    const result = checkSiteConfig(
      petstoreSite({
        layout: (text) =>
          replacing(
            '"display": "interactive"',
            '"display": "Interactive"',
          )(
            replacing(
              '"method": "bearer"',
              '"method": "basic"',
            )(replacing('"prefill": true', '"prefill": "yes"')(text)),
          ),
      }),
    );
    expect(result.ok).toBe(false);
    const byKey = Object.fromEntries(result.findings.map((item) => [item.where.key, item]));
    expect(byKey["api.playground.display"]).toMatchObject({
      severity: "error",
      code: "config-invalid",
      fix: 'Use "interactive".',
    });
    expect(byKey["api.auth.method"]).toMatchObject({ severity: "error", code: "config-invalid" });
    expect(byKey["api.auth.method"]!.message).toContain("bearer, none");
    expect(byKey["api.examples.prefill"]).toMatchObject({
      severity: "error",
      code: "config-invalid",
    });
  });

  it("warns on example languages and defaults outside the values seen", () => {
    const result = checkSiteConfig(
      petstoreSite({
        layout: (text) =>
          replacing(
            '"python"]',
            '"pyhton", "ruby"]',
          )(replacing('"defaults": "required"', '"defaults": "all"')(text)),
      }),
    );
    expect(result.ok).toBe(true);
    expect(result.findings.map((item) => [item.severity, item.code, item.where.key])).toEqual([
      ["warning", "config-unusual-value", "api.examples.languages[2]"],
      ["warning", "config-unusual-value", "api.examples.languages[3]"],
      ["warning", "config-unusual-value", "api.examples.defaults"],
    ]);
    expect(result.findings[0]!.fix).toContain('"python"');
  });

  it("rejects examples.languages that is not an array of strings", () => {
    const result = checkSiteConfig(
      petstoreSite({ layout: replacing('["curl", "javascript", "python"]', '"curl"') }),
    );
    expect(result.findings[0]).toMatchObject({
      code: "config-invalid",
      where: { key: "api.examples.languages" },
    });
  });

  it("warns when the playground proxy is off and lists the CORS headers the API needs", () => {
    const result = checkSiteConfig(
      petstoreSite({ layout: replacing('"proxy": true', '"proxy": false') }),
    );
    expect(result.ok).toBe(true);
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({
      severity: "warning",
      code: "playground-proxy-disabled",
      where: { key: "api.playground.proxy", line: 7 },
    });
    expect(finding!.fix).toContain("Access-Control-Allow-Origin");
    expect(finding!.fix).toContain(
      "Access-Control-Allow-Headers: Authorization, Content-Type, Idempotency-Key",
    );
    expect(finding!.fix).toContain("Access-Control-Allow-Methods: GET, POST, DELETE, OPTIONS");
  });

  it("checks navigation shapes: group label, tabs, top anchor, defaults", () => {
    const layout = JSON.parse(readSiteFile("layout.json"));
    delete layout.navigation.languages[0].groups[0].group;
    layout.navigation.languages.push({ language: "fr", default: true, groups: [] });
    layout.tabs[1] = { name: "API reference", icon: "code" };
    layout.topAnchor = { icon: 3 };
    const result = checkSiteConfig({ ...petstoreSite(), layout });
    expect(result.findings.map((item) => [item.code, item.where.key])).toEqual([
      ["navigation-invalid", "tabs[1].url"],
      ["navigation-invalid", "topAnchor.name"],
      ["navigation-invalid", "topAnchor.icon"],
      ["navigation-invalid", "navigation.languages[0].groups[0].group"],
      ["navigation-invalid", "navigation.languages"],
    ]);
  });

  it("reports a page authMethod the service does not know", () => {
    const result = checkSiteConfig(
      petstoreSite({
        pages: {
          "api-reference/create-pet.mdx": replacing("authMethod: bearer", "authMethod: oauth"),
        },
      }),
    );
    expect(result.findings).toEqual([
      expect.objectContaining({
        code: "config-invalid",
        where: { file: "api-reference/create-pet.mdx", key: "authMethod", line: 5 },
      }),
    ]);
  });

  it("reports layout.json that is not JSON, with its line", () => {
    const result = checkSiteConfig(
      petstoreSite({ layout: replacing('"name": "Petstore",', '"name": "Petstore",,') }),
    );
    expect(result).toMatchObject({
      ok: false,
      findings: [{ code: "layout-unparsable", where: { file: "layout.json", line: 2 } }],
    });
  });

  it("reports unreadable front matter and a navigation page that does not exist", () => {
    const result = checkSiteConfig(
      petstoreSite({
        pages: { "guides/quickstart.mdx": replacing("title: Quickstart", "title: [Quickstart") },
        layout: replacing('"guides/quickstart"', '"guides/quick-start"'),
      }),
    );
    expect(result.findings.map((item) => [item.severity, item.code])).toEqual([
      ["error", "page-front-matter-invalid"],
      ["warning", "navigation-page-not-found"],
    ]);
    expect(result.findings[1]!.fix).toContain('"guides/quickstart"');
  });

  it("rejects malformed call input with a ConfigurationError", () => {
    expect(() => checkSiteConfig({ layout: {}, pages: [{ path: "" } as never] })).toThrow(
      ConfigurationError,
    );
    expect(() => checkSiteConfig({ layout: {}, openapi: "x" as never })).toThrow(
      /openapi must map/,
    );
  });
});

describe("path items given as $ref", () => {
  // The /pets/{petId} path item becomes a $ref to a component that does not exist.
  const moved = (text: string) =>
    text.replace(
      "  /pets/{petId}:\n",
      '  /pets/{petId}:\n    $ref: "#/components/pathItems/Pet"\n  /pets/{petId}/old:\n',
    );

  it("resolves a local $ref, so the operations behind it have pages and flags", () => {
    // Move the /pets/{petId} path item under components and leave a $ref.
    const spec = readSiteFile("openapi.yaml");
    const start = spec.indexOf("  /pets/{petId}:\n");
    const item = spec.slice(start + "  /pets/{petId}:\n".length);
    const rewritten = `${spec.slice(0, start)}  /pets/{petId}:\n    $ref: "#/components/pathItems/Pet"\ncomponents:\n  pathItems:\n    Pet:\n${item.replace(/^ {4}/gm, "      ")}`;
    const result = checkSiteConfig({ ...petstoreSite(), openapi: { "openapi.yaml": rewritten } });
    expect(result).toEqual({ ok: true, findings: [] });

    const hidden = rewritten.replace(
      "summary: Get a pet",
      "summary: Get a pet\n        x-hidden: true",
    );
    const flagged = checkSiteConfig({ ...petstoreSite(), openapi: { "openapi.yaml": hidden } });
    expect(flagged.findings).toEqual([
      expect.objectContaining({ code: "operation-hidden", severity: "error" }),
    ]);
    expect(flagged.findings[0]!.fix).toContain("components.pathItems.Pet.get.x-hidden");
  });

  it("reports a local $ref that points nowhere, at the path item", () => {
    const result = checkSiteConfig(petstoreSite({ openapi: moved }));
    const broken = result.findings.find((item) => item.code === "spec-ref-broken");
    expect(broken).toMatchObject({
      severity: "error",
      where: { file: "openapi.yaml", key: "paths./pets/{petId}.$ref" },
    });
    expect(broken!.message).toContain("#/components/pathItems/Pet");
  });

  it("takes a $ref to another file on trust instead of calling its operations missing", () => {
    const spec = readSiteFile("openapi.yaml");
    const start = spec.indexOf("  /pets/{petId}:\n");
    const rewritten = `${spec.slice(0, start)}  /pets/{petId}:\n    $ref: "./pet.yaml"\n`;
    const result = checkSiteConfig({ ...petstoreSite(), openapi: { "openapi.yaml": rewritten } });
    expect(result.ok).toBe(true);
    expect(result.findings).toEqual([
      expect.objectContaining({
        severity: "warning",
        code: "spec-not-checked",
        where: expect.objectContaining({ key: "paths./pets/{petId}.$ref" }),
      }),
    ]);
  });
});
