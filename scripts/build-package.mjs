// `npm run build`: the package as it is published. tsc emits the type
// declarations the `exports` map points at (one .d.ts per source file);
// esbuild emits the JavaScript, one bundle per entry point with the modules
// they share split into common chunks. A fresh `import("switchyard-agents")` then
// reads a handful of files instead of some two hundred (docs/performance.md,
// "Import time"), and every subpath still shares one copy of each class, so
// `instanceof` holds between `switchyard-agents` and `switchyard-agents/testing`.
// Dependencies stay external: they are resolved from the user's install.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const repository = fileURLToPath(new URL("../", import.meta.url));
const manifest = JSON.parse(
  readFileSync(new URL("package.json", new URL(repository, "file:")), "utf8"),
);

rmSync(new URL("dist", new URL(repository, "file:")), { recursive: true, force: true });

execFileSync(
  process.execPath,
  [fileURLToPath(import.meta.resolve("typescript/bin/tsc")), "-p", "tsconfig.build.json"],
  { cwd: repository, stdio: "inherit" },
);

/** `./dist/src/entries/model.js` -> `src/entries/model` (the source, without extension). */
const sourceOf = (built) => built.replace(/^\.\/dist\//, "").replace(/\.js$/, "");
const entryPoints = {};
for (const target of Object.values(manifest.exports)) {
  if (typeof target === "object" && target.default) {
    entryPoints[sourceOf(target.default)] = `${sourceOf(target.default)}.ts`;
  }
}
for (const bin of Object.values(manifest.bin))
  entryPoints[sourceOf(`./${bin}`)] = `${sourceOf(`./${bin}`)}.ts`;
// The examples stay files of their own, importing the package by name: each
// checks `import.meta.url` to run when started directly, which inside a
// bundle would name the bundle instead.
for (const file of readdirSync(new URL("examples", new URL(repository, "file:")))) {
  if (file.endsWith(".ts")) entryPoints[`examples/${file.slice(0, -3)}`] = `examples/${file}`;
}

/**
 * Imports of an example stay imports of its built file: the CLI's (its
 * bundle sits two levels under dist/, as dist/examples/index.js does) and
 * the examples' own of each other.
 */
const examplesExternal = {
  name: "examples-external",
  setup(builder) {
    builder.onResolve({ filter: /^\./ }, (args) => {
      if (args.importer.startsWith(`${repository}examples/`))
        return { path: args.path, external: true };
      if (
        args.importer.startsWith(`${repository}src/`) &&
        /\/examples\/index\.js$/.test(args.path)
      ) {
        return { path: "../../examples/index.js", external: true };
      }
      return undefined;
    });
  },
};

await build({
  absWorkingDir: repository,
  entryPoints,
  outdir: "dist",
  chunkNames: "src/chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  plugins: [examplesExternal],
  // Dependencies, and the package itself (the examples import it by name).
  external: [
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ].flatMap((name) => [name, `${name}/*`]),
  sourcemap: false,
  legalComments: "none",
  logLevel: "warning",
});
