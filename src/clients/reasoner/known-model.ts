/**
 * The models the reasoning service documents, in its order. Offered for
 * completion where a model is named; any other string is accepted too,
 * since other endpoints have other names.
 */
export const knownModels = [
  "oss-120b",
  "vendorA/r1",
  "vendorA/v3",
  "vendorB/235b",
  "vendorB/2.5-max",
  "vendorC/small-3-24b",
] as const;

/** A model the reasoning service documents, by name (any other string is accepted too). */
export type KnownModel = (typeof knownModels)[number];

/** A model name: one of the {@link KnownModel}s, or any other the endpoint knows. */
export type ModelName = KnownModel | (string & {});
