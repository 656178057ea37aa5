import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { moduleExportNames } from "../helpers/module-export-names.js";

// Every `import { ... } from "switchyard-agents..."` in the README, the
// guides and the example agents names something that entry exports: a name
// taken out of the public surface must not leave a snippet users copy broken.

const root = new URL("../../", import.meta.url);
const readText = (path: string) => readFileSync(new URL(path, root), "utf8");

interface ExportTarget {
  types: string;
}
const packageName = JSON.parse(readText("package.json")).name as string;
const packageExports = Object.entries(
  JSON.parse(readText("package.json")).exports as Record<string, ExportTarget | string>,
).filter((entry): entry is [string, ExportTarget] => typeof entry[1] !== "string");
const sourceOf = (target: ExportTarget) =>
  new URL(target.types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts"), root).pathname;

const documents = [
  "README.md",
  ...readdirSync(new URL("docs/", root))
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file}`),
  ...readdirSync(new URL("examples/", root))
    .filter((file) => file.endsWith(".ts"))
    .map((file) => `examples/${file}`),
];

describe("imports shown in the docs and examples", () => {
  it("name only what their entry point exports", () => {
    const names = moduleExportNames(packageExports.map(([, target]) => sourceOf(target)));
    const exportsOf = new Map(
      packageExports.map(([subpath, target]) => [
        `${packageName}${subpath.slice(1)}`,
        new Set(names.get(sourceOf(target))),
      ]),
    );
    const broken: string[] = [];
    let checked = 0;
    for (const document of documents) {
      const text = readText(document);
      for (const match of text.matchAll(
        /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"(switchyard-agents(?:\/[\w-]+)?)"/g,
      )) {
        const [, list = "", specifier = ""] = match;
        const exported = exportsOf.get(specifier);
        for (const part of list.split(",")) {
          const name = part
            .trim()
            .replace(/^type\s+/, "")
            .split(/\s+as\s+/)[0];
          if (!name) continue;
          checked++;
          if (!exported?.has(name)) broken.push(`${document}: ${name} from "${specifier}"`);
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });
});
