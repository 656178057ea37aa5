const base64UrlPart = /^[A-Za-z0-9_-]+$/;

/**
 * Says why `token` is not a usable bearer token for the order service (a JWT:
 * `eyJ…` with three dot-separated base64url parts), or returns undefined.
 * The problem never quotes the token, not even a prefix beyond `eyJ`.
 */
export function describeTokenProblem(token: unknown, label = "token"): string | undefined {
  if (typeof token !== "string") {
    return `${label} must be a string (the encrypted_token from POST /secrets), got ${token === null ? "null" : typeof token}`;
  }
  if (token === "") return `${label} is empty: pass the encrypted_token from POST /secrets`;
  if (token.trim() !== token) {
    return `${label} has leading or trailing whitespace: trim it (a copied newline is common)`;
  }
  if (/^bearer\s/i.test(token)) {
    return `${label} starts with "Bearer ": pass the token alone, the client adds the header`;
  }
  const parts = token.split(".");
  if (!token.startsWith("eyJ") || parts.length !== 3) {
    return `${label} does not look like a JWT: it must start with "eyJ" and have three dot-separated parts (header.payload.signature); check that the whole encrypted_token was copied`;
  }
  if (!parts.every((part) => base64UrlPart.test(part))) {
    return `${label} does not look like a JWT: each of its three parts must be non-empty base64url text (A-Z, a-z, 0-9, "-", "_"); check that the whole encrypted_token was copied`;
  }
  return undefined;
}
