import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^switchyard\/model$/, replacement: source("./src/entries/model.ts") },
      { find: /^switchyard\/agent$/, replacement: source("./src/entries/agent.ts") },
      { find: /^switchyard\/tools$/, replacement: source("./src/entries/tools.ts") },
      { find: /^switchyard\/reasoner$/, replacement: source("./src/entries/reasoner.ts") },
      { find: /^switchyard\/orders$/, replacement: source("./src/entries/orders.ts") },
      { find: /^switchyard\/docs$/, replacement: source("./src/entries/docs.ts") },
      { find: /^switchyard\/messaging$/, replacement: source("./src/entries/messaging.ts") },
      { find: /^switchyard\/errors$/, replacement: source("./src/entries/errors.ts") },
      { find: /^switchyard\/postgres$/, replacement: source("./src/entries/postgres.ts") },
      { find: /^switchyard\/testing$/, replacement: source("./src/testing/index.ts") },
      { find: /^switchyard\/cli$/, replacement: source("./src/cli/index.ts") },
      { find: /^switchyard\/mcp$/, replacement: source("./src/mcp/index.ts") },
      { find: /^switchyard\/examples$/, replacement: source("./examples/index.ts") },
      { find: /^switchyard\/simulators$/, replacement: source("./src/simulators/index.ts") },
      { find: /^switchyard$/, replacement: source("./src/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["./test/helpers/postgres-global-setup.ts"],
  },
});
