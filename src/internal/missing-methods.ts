/**
 * The names in `methods` that `value` lacks as functions, in order; all of
 * them when `value` is neither an object nor a function. What a check of a store, queue or
 * client handed in by the user reports.
 */
export function missingMethods<Method extends string>(
  value: unknown,
  methods: readonly Method[],
): Method[] {
  const object =
    (typeof value === "object" && value !== null) || typeof value === "function" ? value : {};
  return methods.filter(
    (method) => typeof (object as Record<string, unknown>)[method] !== "function",
  );
}
