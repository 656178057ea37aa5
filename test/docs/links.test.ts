import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repository = fileURLToPath(new URL("../../", import.meta.url));

/** The Markdown users read: the README and every page under docs/, the API reference included. */
const documents = [
  "README.md",
  ...readdirSync(join(repository, "docs"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file.replaceAll("\\", "/")}`)
    .sort(),
];

/** A document's text with its fenced code blocks blanked (their lines kept): they hold neither links nor headings. */
function withoutCodeBlocks(text: string): string {
  return text.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, (block) =>
    block.replace(/[^\n]/g, ""),
  );
}

/** GitHub's anchor for a heading: its text lowercased, punctuation dropped, spaces made hyphens. */
function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/\\(.)/g, "$1")
    .replace(/[`*]/g, "")
    .trim();
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a document offers: its headings' slugs (numbered when repeated) and its `<a id|name>`s. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const body = withoutCodeBlocks(text);
  for (const [, heading] of body.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = headingSlug(heading!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, anchor] of body.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(anchor!);
  return anchors;
}

/** Every link target in a document's prose (inline code and code blocks aside), with its line. */
function linksOf(text: string): { target: string; line: number }[] {
  const lines = withoutCodeBlocks(text).split("\n");
  return lines.flatMap((line, index) =>
    [
      ...line
        .replace(/`[^`]*`/g, "``")
        .matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|<a\s+href="([^"]+)"/g),
    ].map((match) => ({ target: (match[1] ?? match[2])!, line: index + 1 })),
  );
}

const texts = new Map(
  documents.map((document) => [document, readFileSync(join(repository, document), "utf8")]),
);
const anchorCache = new Map<string, Set<string>>();

/** Why a link from `document` to `target` leads nowhere, or undefined when it resolves. */
function brokenBecause(document: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [path = "", anchor] = target.split("#", 2);
  const file =
    path === "" ? join(repository, document) : join(repository, dirname(document), decodeURI(path));
  if (!existsSync(file)) return `no file ${relative(repository, file)}`;
  if (anchor === undefined || anchor === "") return undefined;
  const key = relative(repository, file).replaceAll("\\", "/");
  if (!key.endsWith(".md")) return `#${anchor} in a file that is not Markdown`;
  let anchors = anchorCache.get(key);
  if (!anchors) {
    anchors = anchorsOf(texts.get(key) ?? readFileSync(file, "utf8"));
    anchorCache.set(key, anchors);
  }
  return anchors.has(decodeURIComponent(anchor))
    ? undefined
    : `no heading or anchor #${anchor} in ${key}`;
}

describe("the links in the README and docs/", () => {
  it("read every document, the API reference included", () => {
    expect(documents).toContain("README.md");
    expect(documents).toContain("docs/api/README.md");
    expect(documents).toContain("docs/api/switchyard-agents.md");
  });

  it("find GitHub's anchors for headings, repeated ones numbered", () => {
    const anchors = anchorsOf(
      '# Quick start\n## The `run` command: flags\n```sh\n# not a heading\n```\n### stream()\n### stream()\n<a id="custom"></a>\n',
    );
    expect([...anchors]).toEqual([
      "quick-start",
      "the-run-command-flags",
      "stream",
      "stream-1",
      "custom",
    ]);
  });

  it("each lead to a file that exists and, with a #fragment, to a heading or anchor in it", () => {
    const broken = documents.flatMap((document) =>
      linksOf(texts.get(document)!).flatMap(({ target, line }) => {
        const reason = brokenBecause(document, target);
        return reason ? [`${document}:${line}: (${target}) ${reason}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });
});
