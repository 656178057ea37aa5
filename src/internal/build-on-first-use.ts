/**
 * `build` run on the first call of the returned function and its value kept
 * for every later call: for what needs a package only some runs use (zod
 * schemas), so `import("switchyard-agents")` does not load it.
 */
export function buildOnFirstUse<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
