import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

let zod: typeof import("zod") | undefined;

/**
 * zod (the application's copy: a peer dependency), loaded the first time
 * Switchyard builds or checks a schema, not by `import("switchyard-agents")`: its
 * some hundred files were most of the main entry's import time. The ES
 * module entry is required (`require` of an ES module, Node 22.12 and later), so
 * this is the very module the application imports, not zod's CommonJS twin.
 */
export function loadZod(): typeof import("zod") {
  zod ??= require(fileURLToPath(import.meta.resolve("zod"))) as typeof import("zod");
  return zod;
}
