import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repository = fileURLToPath(new URL("../../", import.meta.url));

/** The documents the package ships for its users (the generated docs/api aside). */
const documents = [
  "README.md",
  ...readdirSync(join(repository, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file}`),
  ...readdirSync(join(repository, "examples"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => `examples/${file}`),
];

/** What only the people building the package can read: tracker numbers, work rounds, commits. */
const insiderReferences = [
  /\bissues? #?\d+/i,
  /\b(?:this|previous|earlier|last|next) round\b/i,
  /\bround \d+\b/i,
  /`(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}`/,
];

describe("the documents users read", () => {
  it("speak to users: no issue numbers, rounds or commit hashes", () => {
    const found = documents.flatMap((document) =>
      readFileSync(join(repository, document), "utf8")
        .split("\n")
        .flatMap((line, index) =>
          insiderReferences.some((pattern) => pattern.test(line))
            ? [`${document}:${index + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(documents).toContain("docs/performance.md");
    expect(found).toEqual([]);
  });
});
