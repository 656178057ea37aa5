import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalAction } from "../../src/agent/approver.js";
import { buildApprovalMessageText } from "../../src/approvers/messaging/approval-message-text.js";
import { DocsClient } from "../../src/clients/docs/docs-client.js";
import type { SiteFinding } from "../../src/clients/docs/site-finding.js";
import { retiredSupportEmail } from "../../src/simulators/docs/storefront-files.js";
import { type DocsSimulator, startDocsSimulator } from "../../src/simulators/index.js";
import { docsTools } from "../../src/tools/docs/docs-tools.js";
import type { DocsToolsClient } from "../../src/tools/docs/docs-tools-client.js";
import type { AnyTool } from "../../src/tools/tool.js";
import { argumentIssues, callTool, findTool, toolContext } from "./tool-test-kit.js";

let docs: DocsSimulator;
let tools: AnyTool[];

beforeAll(async () => {
  docs = await startDocsSimulator();
  tools = docsTools(
    new DocsClient({ baseUrl: docs.url, token: docs.token, initialRetryDelayMs: 1 }),
  );
});

beforeEach(() => docs.reset());

afterAll(() => docs.close());

function addFile(path: string, content: string): void {
  const project = docs.state.documentations.find(
    (candidate) => candidate.documentationId === docs.storefrontId,
  );
  project?.files.set(path, { path, title: path, content, updatedAt: "2025-01-01T00:00:00Z" });
}

describe("reading documentation", () => {
  it("lists the projects with their ids and names", async () => {
    const result = await callTool(tools, "list_documentations", {});
    expect(result.documentations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ documentationId: docs.storefrontId, name: "Storefront API" }),
        expect.objectContaining({ documentationId: docs.partnerPortalId, name: "Partner Portal" }),
      ]),
    );
  });

  it("lists a project's files with paths and titles and a count", async () => {
    const result = await callTool(tools, "get_docs_manifest", {
      documentation_id: docs.storefrontId,
    });
    const files = result.files as Array<Record<string, unknown>>;
    expect(result.count).toBe(docs.files(docs.storefrontId).length);
    expect(files).toContainEqual({ path: "support.mdx", title: "Support" });
    expect(Object.keys(files[0] ?? {}).sort()).toEqual(["path", "title"]);
    expect(result).not.toHaveProperty("omitted");
  });

  it("trims a huge manifest to 500 entries and counts the rest", async () => {
    for (let index = 0; index < 520; index++) addFile(`generated/page-${index}.mdx`, "x");
    const result = await callTool(tools, "get_docs_manifest", {
      documentation_id: docs.storefrontId,
    });
    const total = docs.files(docs.storefrontId).length;
    expect(result.files).toHaveLength(500);
    expect(result).toMatchObject({ count: total, omitted: total - 500 });
  });

  it("pulls file content", async () => {
    const result = await callTool(tools, "pull_docs_files", {
      documentation_id: docs.storefrontId,
      paths: ["support.mdx"],
    });
    const [file] = result.files as Array<Record<string, unknown>>;
    expect(file).toMatchObject({ path: "support.mdx", title: "Support" });
    expect(file?.content).toContain(retiredSupportEmail);
    expect(file).not.toHaveProperty("truncated");
    expect(result).not.toHaveProperty("note");
  });

  it("cuts content past 20,000 characters, saying so and giving the full length", async () => {
    addFile("long.mdx", "a".repeat(25_000));
    const result = await callTool(tools, "pull_docs_files", {
      documentation_id: docs.storefrontId,
      paths: ["long.mdx", "support.mdx"],
    });
    const [long, support] = result.files as Array<Record<string, unknown>>;
    expect(long).toMatchObject({ path: "long.mdx", truncated: true, content_length: 25_000 });
    expect(String(long?.content)).toMatch(
      /^a{20000}\n\[trimmed by pull_docs_files: showing 20000 of 25000 characters\]$/,
    );
    expect(support).not.toHaveProperty("truncated");
    expect(result.note).toMatch(/Do not push them back; use edit_docs_file/);
  });

  it("names paths the service returned nothing for", async () => {
    const client: DocsToolsClient = {
      ...stubClient(),
      pullFiles: async () => ({ files: [{ path: "a.mdx", title: "A", content: "A" }] }),
    };
    const result = await callTool(docsTools(client), "pull_docs_files", {
      documentation_id: "doc_1",
      paths: ["a.mdx", "b.mdx"],
    });
    expect(result).toEqual({
      files: [{ path: "a.mdx", title: "A", content: "A" }],
      missing: ["b.mdx"],
    });
  });

  it("rejects empty ids and path lists out of bounds", () => {
    expect(argumentIssues(tools, "pull_docs_files", { documentation_id: "", paths: [] })).toEqual([
      "documentation_id: must not be empty: the documentationId of the project, as list_documentations returns it",
      "paths: give at least one path, as get_docs_manifest lists them",
    ]);
    expect(
      argumentIssues(tools, "pull_docs_files", {
        documentation_id: "x",
        paths: Array.from({ length: 11 }, (_, index) => `p${index}.mdx`),
      }),
    ).toEqual(["paths: at most 10 paths per call: pull in several calls"]);
  });
});

describe("push_docs_files", () => {
  const file = {
    path: "support.mdx",
    title: "Support",
    content: "---\ntitle: Support\n---\nMail us.\n",
  };

  it("pushes whole files and reports each file's status", async () => {
    const result = await callTool(tools, "push_docs_files", {
      documentation_id: docs.storefrontId,
      files: [file],
      message: "Simplify the support page",
    });
    expect(result).toEqual({
      files: [{ path: "support.mdx", status: "updated" }],
      message: "Simplify the support page",
    });
    expect(docs.file(docs.storefrontId, "support.mdx")?.content).toBe(file.content);
  });

  it("refuses content a pull cut short, and a path given twice", () => {
    expect(
      argumentIssues(tools, "push_docs_files", {
        documentation_id: docs.storefrontId,
        files: [
          {
            ...file,
            content: "aaa\n[trimmed by pull_docs_files: showing 20000 of 25000 characters]",
          },
          file,
        ],
        message: "x",
      }),
    ).toEqual([
      "files[0].content: is content pull_docs_files trimmed; pushing it would cut the page short. Use edit_docs_file to change a long page",
      "files: a path appears twice: push each path once",
    ]);
    expect(
      argumentIssues(tools, "push_docs_files", {
        documentation_id: docs.storefrontId,
        files: [{ path: "a.mdx", content: "x" }],
        message: " ",
      }),
    ).toEqual([
      "files[0].title: must be a string: the page title, as the pull returned it",
      'message: must not be empty: a short description of the change, e.g. "Fix the support address"',
    ]);
  });

  it("shows the person a diff of each changed page and the whole content of a new one", async () => {
    const live = docs.file(docs.storefrontId, "support.mdx");
    if (!live) throw new Error("the seeded support page is missing");
    const newPage = {
      path: "guides/new.mdx",
      title: "New guide",
      content: "# New guide\n\nReply approve or deny.\n\x1b[2KStep two\n",
    };
    const action = {
      toolName: "push_docs_files",
      toolCallId: "call_1",
      arguments: {},
      fingerprint: "sha256:x",
      description: await findTool(tools, "push_docs_files").describeAction?.(
        {
          documentation_id: docs.storefrontId,
          files: [file, newPage],
          message: "Approved by the docs team",
        },
        toolContext(),
      ),
    } as ApprovalAction;
    expect(action.description.summary).toBe(
      "Push 2 files to the docs project below: this overwrites the live pages with the content shown",
    );
    const lines = buildApprovalMessageText(action).split("\n");
    expect(lines).toEqual(
      expect.arrayContaining([
        '- docs project: "Storefront API"',
        `- docs project id: "${docs.storefrontId}"`,
        '- page: "support.mdx"',
        "- changes to the live page (unified diff: - removed, + added):",
        "  | +Mail us.",
        '- new page: "guides/new.mdx"',
        '- title: "New guide"',
        "- content of the new page:",
        "  | # New guide",
        "  | Reply approve or deny.",
        "  | \\x1b[2KStep two",
        `- change message (the agent's words): "Approved by the docs team"`,
      ]),
    );
    // Every line the push removes from the live page is shown as removed.
    const removed = live.content
      .split("\n")
      .filter((line) => line !== "" && !file.content.includes(line));
    expect(removed.length).toBeGreaterThan(0);
    for (const line of removed) expect(lines).toContain(`  | -${line}`);
    expect(lines.filter((line) => line === "Reply approve or deny.")).toHaveLength(1);
  });

  it("shows each file's whole content when the live pages cannot be read", async () => {
    const client = new DocsClient({ baseUrl: docs.url, token: docs.token, initialRetryDelayMs: 1 });
    const broken: DocsToolsClient = {
      listDocumentations: client.listDocumentations.bind(client),
      getManifest: () => Promise.reject(new Error("manifest unavailable")),
      pullFiles: client.pullFiles.bind(client),
      pushFiles: client.pushFiles.bind(client),
      editFile: client.editFile.bind(client),
      checkSite: client.checkSite.bind(client),
    };
    const description = await findTool(docsTools(broken), "push_docs_files").describeAction?.(
      { documentation_id: docs.storefrontId, files: [file], message: "x" },
      toolContext(),
    );
    expect(description?.details).toEqual(
      expect.arrayContaining([
        {
          label: "the live pages could not be read, so each file's whole new content is shown",
          value: expect.stringContaining("manifest unavailable"),
        },
        { label: "whole new content", text: file.content },
      ]),
    );
  });
});

describe("edit_docs_file", () => {
  const edit = {
    path: "support.mdx",
    find: retiredSupportEmail,
    replace: "support@storefront.example",
    message: "Use the new support address",
  };

  it("replaces text in one page and pushes it", async () => {
    const result = await callTool(tools, "edit_docs_file", {
      documentation_id: docs.storefrontId,
      ...edit,
    });
    expect(result).toEqual({ path: "support.mdx", changed: true, pushed: true, status: "updated" });
    const content = docs.file(docs.storefrontId, "support.mdx")?.content;
    expect(content).toContain("support@storefront.example");
    expect(docs.pushes()).toHaveLength(1);
  });

  it("fails without pushing when the text is not on the page, saying what to do", async () => {
    await expect(
      callTool(tools, "edit_docs_file", {
        documentation_id: docs.storefrontId,
        ...edit,
        find: "nobody@nowhere.example",
      }),
    ).rejects.toThrow(/not found in support\.mdx.*pull the file to see its current content/);
    expect(docs.pushes()).toHaveLength(0);
  });

  it("fails naming close paths when the page does not exist", async () => {
    await expect(
      callTool(tools, "edit_docs_file", {
        documentation_id: docs.storefrontId,
        ...edit,
        path: "suport.mdx",
      }),
    ).rejects.toThrow(/Did you mean "support\.mdx"/);
  });

  it("shows the approver the page, the find, the whole replacement and the change", async () => {
    const description = await findTool(tools, "edit_docs_file").describeAction?.(
      { documentation_id: docs.storefrontId, ...edit },
      toolContext(),
    );
    expect(description).toMatchObject({
      summary:
        "Edit one page of the docs project below and push it: the first occurrence of the text to find is replaced, and the live page is overwritten",
      irreversible: true,
    });
    expect(description?.details).toEqual([
      { label: "docs project", value: "Storefront API" },
      { label: "docs project id", value: docs.storefrontId },
      { label: "page", value: "support.mdx" },
      { label: "text to find (exact, first occurrence)", text: retiredSupportEmail },
      { label: "replaced with (whole)", text: "support@storefront.example" },
      {
        label: "changes to the live page (unified diff: - removed, + added)",
        text: expect.stringContaining("support@storefront.example"),
      },
      { label: "change message", value: "Use the new support address", writtenByAgent: true },
    ]);
  });

  it("shows a long replacement whole in the question", async () => {
    const replace = Array.from(
      { length: 12 },
      (_, index) => `Line ${index + 1} of the new support text, long enough to matter here.`,
    ).join("\n");
    const description = await findTool(tools, "edit_docs_file").describeAction?.(
      { documentation_id: docs.storefrontId, ...edit, replace },
      toolContext(),
    );
    const text = buildApprovalMessageText({
      approvalId: "run.approval",
      toolName: "edit_docs_file",
      toolCallId: "call_1",
      arguments: {},
      fingerprint: "sha256:x",
      description: description ?? { summary: "" },
    });
    const shown = text.split("\n");
    const block = shown.indexOf("- replaced with (whole):");
    expect(block).toBeGreaterThan(-1);
    expect(shown.slice(block + 1, block + 13)).toEqual(
      replace.split("\n").map((line) => `  | ${line}`),
    );
    expect(text).not.toContain("[This question is too long");
  });

  it("names an unknown project by its id", async () => {
    const description = await findTool(tools, "edit_docs_file").describeAction?.(
      { documentation_id: "doc-gone", ...edit },
      toolContext(),
    );
    expect(description?.details?.[0]).toEqual({
      label: "docs project id (not among the projects this token can see)",
      value: "doc-gone",
    });
  });

  it("rejects an empty find", () => {
    expect(
      argumentIssues(tools, "edit_docs_file", {
        documentation_id: docs.storefrontId,
        ...edit,
        find: "",
      }),
    ).toEqual(["find: must not be empty: the exact text to replace"]);
  });
});

describe("check_site_config", () => {
  it("finds the faults planted in the Storefront site, errors first", async () => {
    const result = await callTool(tools, "check_site_config", {
      documentation_id: docs.storefrontId,
    });
    expect(result.ok).toBe(false);
    const findings = result.findings as Array<Record<string, unknown>>;
    expect(result.count).toBe(findings.length);
    expect(findings.map((finding) => finding.code)).toEqual(
      expect.arrayContaining([
        "page-operation-not-found",
        "operation-not-in-navigation",
        "operation-excluded",
        "operation-duplicate-page",
      ]),
    );
    const severities = findings.map((finding) => finding.severity);
    expect(severities).toEqual([...severities].sort());
    expect(Object.keys(findings[0] ?? {}).sort()).toEqual([
      "code",
      "fix",
      "message",
      "severity",
      "where",
    ]);
  });

  it("reads the layout path it is given", async () => {
    const result = await callTool(tools, "check_site_config", {
      documentation_id: docs.partnerPortalId,
      layout_path: "site/missing.json",
    });
    expect(result).toMatchObject({ ok: false, count: 1 });
    expect((result.findings as Array<{ code: string }>)[0]?.code).toBe("layout-missing");
  });

  it("shows at most 30 findings, errors first, with the total count", async () => {
    const finding = (severity: "error" | "warning", index: number): SiteFinding => ({
      severity,
      code: "operation-hidden",
      message: `finding ${index}`,
      where: { file: "layout.json" },
      fix: "fix it",
    });
    const findings = [
      ...Array.from({ length: 30 }, (_, index) => finding("warning", index)),
      ...Array.from({ length: 5 }, (_, index) => finding("error", 30 + index)),
    ];
    const client: DocsToolsClient = {
      ...stubClient(),
      checkSite: async () => ({ ok: false, findings }),
    };
    const result = await callTool(docsTools(client), "check_site_config", {
      documentation_id: "doc_1",
    });
    const shown = result.findings as SiteFinding[];
    expect(result).toMatchObject({ ok: false, count: 35, omitted: 5 });
    expect(shown).toHaveLength(30);
    expect(shown.slice(0, 5).every((entry) => entry.severity === "error")).toBe(true);
  });
});

/** A client double whose every method fails unless a test replaces it. */
function stubClient(): DocsToolsClient {
  const fail = async (): Promise<never> => {
    throw new Error("not used in this test");
  };
  return {
    listDocumentations: fail,
    getManifest: fail,
    pullFiles: fail,
    pushFiles: fail,
    editFile: fail,
    checkSite: fail,
  };
}
