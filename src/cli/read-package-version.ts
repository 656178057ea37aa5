import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The version in switchyard's package.json, found by walking up from this
 * file: it sits two levels up from the sources and three from the build.
 */
export function readPackageVersion(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === "switchyard-agents" && typeof manifest.version === "string") {
        return manifest.version;
      }
    } catch {
      // No readable package.json here: keep walking up.
    }
    const parent = dirname(directory);
    if (parent === directory) return "unknown";
    directory = parent;
  }
}
