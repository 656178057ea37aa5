import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// `npm run lint` runs ESLint with the repository's eslint.config.js after Biome;
// these run the same configuration on a fixture file inside src/.
const root = fileURLToPath(new URL("../..", import.meta.url));
const eslint = new ESLint({ cwd: root });

async function problems(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}src/lint-fixture.ts` });
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`);
}

describe("the ReDoS lint over src", () => {
  it("fails a pattern that rescans a run once per character", async () => {
    const found = await problems(
      'export const path = (text: string) => text.replace(/\\/+$/, "");\n',
    );
    expect(found).toEqual([expect.stringMatching(/^regexp\/no-super-linear-move: /)]);
  });

  it("fails a pattern that backtracks polynomially", async () => {
    const found = await problems("export const fence = /^```\\s*\\n([\\s\\S]*?)```$/;\n");
    expect(found).toEqual([expect.stringMatching(/^regexp\/no-super-linear-backtracking: /)]);
  });

  it("passes linear patterns", async () => {
    const found = await problems(
      'export const slug = /^[a-z0-9-]{1,64}$/;\nexport const spaces = (text: string) => text.replace(/\\s+/g, " ");\n',
    );
    expect(found).toEqual([]);
  });
});
