// ESLint runs only the regular-expression checks that Biome lacks: a
// pattern whose matching time can grow faster than the text (a ReDoS) fails
// `npm run lint`. Biome formats and lints everything else.
//
// `report: "potential"` also reports patterns whose rejecting suffix the
// checker cannot see (a pattern stored in a constant and used elsewhere),
// and `ignorePartial: false` checks patterns built from parts too.
// The checker misses some super-linear shapes (a quantifier after a fixed
// prefix such as `eyJ[...]+\.`, or after `\b`); test/internal/linear-patterns.test.ts
// feeds the patterns that had them large adversarial inputs, and
// test/package/linear-pattern-lint.test.ts checks this lint fails a quadratic one.
import typescriptParser from "@typescript-eslint/parser";
import regexp from "eslint-plugin-regexp";

const linearPatternRules = {
  "regexp/no-super-linear-backtracking": ["error", { report: "potential" }],
  "regexp/no-super-linear-move": [
    "error",
    { report: "potential", ignorePartial: false, ignoreSticky: false },
  ],
};

export default [
  {
    files: ["src/**/*.ts", "examples/**/*.ts", "bench/**/*.ts"],
    languageOptions: { parser: typescriptParser },
    plugins: { regexp },
    rules: linearPatternRules,
  },
];
