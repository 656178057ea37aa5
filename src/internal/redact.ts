/**
 * Secret scrubbing for logs, errors and anything shown to the model.
 * Keys are matched case-insensitively at any depth.
 */

const secretKeyPattern =
  /^(authorization|proxy-authorization|api[-_]?key|apikey|x-api-key|token|access[-_]?token|refresh[-_]?token|bearer|encrypted[-_]?token|secret|secret[-_]?phrase|password|client[-_]?secret|cookie|set-cookie)$/i;

export const redactedMarker = "[redacted]";

/** True when a property of this name holds a secret. */
export function isSecretKey(key: string): boolean {
  return secretKeyPattern.test(key);
}

// A credential after "Bearer": long, or with a digit or punctuation inside
// it, so prose such as "the bearer token is invalid." stays readable.
const bearerPattern =
  /(bearer\s+)(?:[A-Za-z0-9._~+/=-]{20,}|(?=[A-Za-z0-9._~+/=-]{6,})[A-Za-z]*[0-9._~+/=-][A-Za-z0-9._~+/=-]*[A-Za-z0-9=])/gi;
const jwtPattern = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*)?/g;

/**
 * Removes secrets from free text: bearer credentials, anything shaped like a
 * JWT, and each exact value in `knownSecrets` (the client's own token, ...).
 */
export function redactText(text: string, knownSecrets: readonly string[] = []): string {
  let result = text;
  for (const secret of knownSecrets) {
    if (secret.length >= 4) result = result.split(secret).join(redactedMarker);
  }
  return result.replace(bearerPattern, `$1${redactedMarker}`).replace(jwtPattern, redactedMarker);
}

/**
 * Deep copy of `value` with secret-named properties replaced and secret-shaped
 * strings scrubbed. Cycles are cut.
 */
export function redactValue(value: unknown, knownSecrets: readonly string[] = []): unknown {
  return redactInner(value, knownSecrets, new WeakSet());
}

function redactInner(
  value: unknown,
  knownSecrets: readonly string[],
  seen: WeakSet<object>,
): unknown {
  if (typeof value === "string") return redactText(value, knownSecrets);
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return "[circular]";
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactInner(item, knownSecrets, seen));
  const result: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    // defineProperty keeps a "__proto__" key a key instead of a prototype.
    Object.defineProperty(result, key, {
      value:
        isSecretKey(key) && inner !== undefined && inner !== null && inner !== ""
          ? redactedMarker
          : redactInner(inner, knownSecrets, seen),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}
