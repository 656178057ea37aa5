import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^switchyard\/testing$/, replacement: source("./src/testing/index.ts") },
      { find: /^switchyard\/cli$/, replacement: source("./src/cli/index.ts") },
      { find: /^switchyard\/simulators$/, replacement: source("./src/simulators/index.ts") },
      { find: /^switchyard$/, replacement: source("./src/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
