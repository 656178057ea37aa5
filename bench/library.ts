import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type * as Switchyard from "../src/index.js";

/** The main entry of the package: its classes and functions. */
export type Library = typeof Switchyard;

/**
 * Which copy of the library a figure measures: `built`, the package as users
 * install it (`dist/`, what `npm run build` makes; the default of every
 * figure with a floor), or `sources`, the TypeScript files run through tsx
 * (which wraps every closure in a `__name()` call the build has not), for
 * tests that must not depend on a build another test may be redoing.
 */
export type LibrarySource = "built" | "sources";

const builtEntry = new URL("../dist/src/index.js", import.meta.url);
const repository = fileURLToPath(new URL("../", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** The library's main entry, from the build or from the sources. */
export async function loadLibrary(source: LibrarySource = "built"): Promise<Library> {
  if (source === "sources") return import("../src/index.js");
  if (!existsSync(builtEntry)) {
    throw new Error(
      `${fileURLToPath(builtEntry)} is missing: build the package first (npm run build; npm run bench does it in prebench)`,
    );
  }
  return (await import(builtEntry.href)) as Library;
}

/** Builds the package (`npm run build`), for a bench started without `npm run bench`. */
export function buildPackage(): void {
  execFileSync(npm, ["run", "-s", "build"], { cwd: repository, stdio: "ignore" });
}
