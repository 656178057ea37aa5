/**
 * Shortest secret phrase accepted. The seed asks for a phrase that is unique,
 * complex and not guessable, and the phrase is what deletes a token later, so
 * short phrases are refused before anything is sent.
 */
export const minimumSecretPhraseLength = 12;

/**
 * Says why `phrase` is not an acceptable secret phrase, or returns undefined.
 * The problem never quotes the phrase.
 */
export function describeSecretPhraseProblem(phrase: unknown, label: string): string | undefined {
  if (typeof phrase !== "string") {
    return `${label} must be a string, got ${phrase === null ? "null" : typeof phrase}`;
  }
  if (phrase.trim().length < minimumSecretPhraseLength) {
    return `${label} is too short: use at least ${minimumSecretPhraseLength} non-blank characters, unique to this account and environment`;
  }
  return undefined;
}
