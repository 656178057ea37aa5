import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * A package loaded the first time the returned function is called, not when
 * Switchyard is imported: for what only some runs use (YAML parsing, the
 * zod 3 converter), so `import("switchyard-agents")` does not pay for it. Loaded
 * synchronously through its CommonJS entry, since the callers are sync;
 * only for packages whose values stay inside Switchyard (no `instanceof`
 * across the user's copy).
 */
export function loadOnFirstUse<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(name) as T;
    return loaded;
  };
}
