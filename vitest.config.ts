import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^switchyard-agents\/model$/, replacement: source("./src/entries/model.ts") },
      { find: /^switchyard-agents\/agent$/, replacement: source("./src/entries/agent.ts") },
      { find: /^switchyard-agents\/tools$/, replacement: source("./src/entries/tools.ts") },
      { find: /^switchyard-agents\/reasoner$/, replacement: source("./src/entries/reasoner.ts") },
      { find: /^switchyard-agents\/orders$/, replacement: source("./src/entries/orders.ts") },
      { find: /^switchyard-agents\/docs$/, replacement: source("./src/entries/docs.ts") },
      { find: /^switchyard-agents\/messaging$/, replacement: source("./src/entries/messaging.ts") },
      { find: /^switchyard-agents\/errors$/, replacement: source("./src/entries/errors.ts") },
      { find: /^switchyard-agents\/postgres$/, replacement: source("./src/entries/postgres.ts") },
      { find: /^switchyard-agents\/testing$/, replacement: source("./src/testing/index.ts") },
      { find: /^switchyard-agents\/cli$/, replacement: source("./src/cli/index.ts") },
      { find: /^switchyard-agents\/dbos$/, replacement: source("./src/dbos/index.ts") },
      { find: /^switchyard-agents\/mcp$/, replacement: source("./src/mcp/index.ts") },
      { find: /^switchyard-agents\/ag-ui$/, replacement: source("./src/ag-ui/index.ts") },

      { find: /^switchyard-agents\/ai-sdk$/, replacement: source("./src/ai-sdk/index.ts") },
      // biome-ignore format: the public-names test reads each alias on one line.
      { find: /^switchyard-agents\/openai-agents$/, replacement: source("./src/openai-agents/index.ts") },
      { find: /^switchyard-agents\/examples$/, replacement: source("./examples/index.ts") },
      { find: /^switchyard-agents\/simulators$/, replacement: source("./src/simulators/index.ts") },
      { find: /^switchyard-agents$/, replacement: source("./src/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["./test/helpers/postgres-global-setup.ts"],
    setupFiles: ["./test/helpers/fail-on-warnings.ts"],
  },
});
