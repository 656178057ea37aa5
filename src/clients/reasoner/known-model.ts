/**
 * The models the reasoning service documents. Offered for completion where
 * a model is named; any other string is accepted too, since other endpoints
 * have other names.
 */
export type KnownModel =
  | "oss-120b"
  | "vendorA/r1"
  | "vendorA/v3"
  | "vendorB/235b"
  | "vendorB/2.5-max"
  | "vendorC/small-3-24b";

/** A model name: one of the {@link KnownModel}s, or any other the endpoint knows. */
export type ModelName = KnownModel | (string & {});

/** The {@link KnownModel}s as a list, in the order the reasoning service documents them. */
export const knownModels: readonly KnownModel[] = [
  "oss-120b",
  "vendorA/r1",
  "vendorA/v3",
  "vendorB/235b",
  "vendorB/2.5-max",
  "vendorC/small-3-24b",
];
