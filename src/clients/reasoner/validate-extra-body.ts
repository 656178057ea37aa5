import {
  checkBoolean,
  checkNonEmptyString,
  checkNumberInRange,
  checkObject,
  checkPositiveInteger,
  checkStringArray,
} from "./validation-checks.js";

/**
 * Checks provider routing (`order`, `allow_fallbacks`, `require`); `label` is
 * where it sits, e.g. `extra_body.provider`. Other keys pass through.
 */
export function checkProviderRouting(problems: string[], label: string, value: unknown): void {
  if (!checkObject(problems, label, value)) return;
  const routing = value as Record<string, unknown>;
  checkStringArray(problems, `${label}.order`, routing.order);
  checkBoolean(problems, `${label}.allow_fallbacks`, routing.allow_fallbacks);
  checkStringArray(problems, `${label}.require`, routing.require);
}

/**
 * Checks token compression (`token_limit` > 0, the two MMR lambdas in 0..1,
 * `embedding_provider`); `label` is where it sits, e.g. `extra_body.compression`.
 */
export function checkCompression(problems: string[], label: string, value: unknown): void {
  if (!checkObject(problems, label, value)) return;
  const compression = value as Record<string, unknown>;
  checkPositiveInteger(problems, `${label}.token_limit`, compression.token_limit);
  checkNumberInRange(problems, `${label}.mmr_lambda_text`, compression.mmr_lambda_text, 0, 1);
  checkNumberInRange(problems, `${label}.mmr_lambda_code`, compression.mmr_lambda_code, 0, 1);
  checkNonEmptyString(problems, `${label}.embedding_provider`, compression.embedding_provider);
}

/** Checks `extra_body`: an object whose `provider` and `compression` are well formed. */
export function checkExtraBody(problems: string[], value: unknown): void {
  if (!checkObject(problems, "extra_body", value)) return;
  const extraBody = value as Record<string, unknown>;
  checkProviderRouting(problems, "extra_body.provider", extraBody.provider);
  checkCompression(problems, "extra_body.compression", extraBody.compression);
}
