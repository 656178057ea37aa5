/**
 * The example agents `switchyard run` knows, in the order `switchyard
 * examples` lists them. Each file also runs on its own with `node --import tsx`.
 *
 * @module switchyard-agents/examples
 */
import { fileURLToPath } from "node:url";
import type { ExampleDefinition } from "switchyard-agents/cli";
import { callbackCleanup } from "./callback-cleanup.js";
import { customTool } from "./custom-tool.js";
import { docsEdit } from "./docs-edit.js";
import { orderReport } from "./order-report.js";

export { callbackCleanup, customTool, docsEdit, orderReport };

/** Every example, the demo first. */
export const examples: readonly ExampleDefinition[] = [
  callbackCleanup,
  docsEdit,
  orderReport,
  customTool,
];

/**
 * The directory of the example files: `examples/` (TypeScript) in a clone,
 * `dist/examples/` (JavaScript) where the package is installed.
 */
export const exampleDirectory: string = fileURLToPath(new URL(".", import.meta.url));
