/**
 * The one redaction policy: what counts as a secret and how it is removed,
 * for every boundary (what the model reads, saved run states, log records,
 * thrown errors, the command line's output).
 *
 * Two lines of defence:
 * 1. Exact values registered with a {@link SecretRegistry}: each client
 *    registers its token (and the phrases and callback tokens it handles),
 *    the agent its `secrets` and `stateKey` and the registries of its model,
 *    tools and approver. A registry belongs to its owner, so two agents with
 *    different keys in one process each redact their own.
 * 2. Patterns for secrets nobody registered: properties with a secret name
 *    (`token`, `authorization`, `secret_phrase`, ...), bearer credentials,
 *    JWTs, `sk-...` keys and the user part of a URL (`https://user:pass@`).
 */

const secretKeyPattern =
  /^(authorization|proxy-authorization|api[-_]?key|apikey|x-api-key|token|access[-_]?token|refresh[-_]?token|id[-_]?token|bearer|encrypted[-_]?token|secret|client[-_]?secret|secret[-_]?phrase|secret[-_]?key|private[-_]?key|state[-_]?key|password|passphrase|cookie|set-cookie)$/i;

/** What every removed secret is replaced with. */
export const redactedMarker = "[redacted]";

/** True when a property (or header) of this name holds a secret. */
export function isSecretKey(key: string): boolean {
  return secretKeyPattern.test(key);
}

// A credential after "Bearer": long, or with a digit or punctuation inside
// it, so prose such as "the bearer token is invalid." stays readable.
const bearerPattern =
  /(bearer\s+)(?:[A-Za-z0-9._~+/=-]{20,}|(?=[A-Za-z0-9._~+/=-]{6,})[A-Za-z]*[0-9._~+/=-][A-Za-z0-9._~+/=-]*[A-Za-z0-9=])/gi;
// Every pattern below runs in time linear in the text (the ReDoS lint checks
// what it can): a search starts only where its scan cannot overlap another
// start's. A JWT starts where a run of base64url characters starts, so
// `eyJeyJeyJ…` is scanned once, not once per `eyJ`.
const jwtPattern = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*)?/g;
// API keys in the `sk-...` style of most model providers.
const apiKeyPattern = /\bsk-(?:[A-Za-z0-9]+-)?[A-Za-z0-9_-]{16,}/g;
// The user and password of a URL, also in text that does not parse as a URL.
// The search starts at `://` and checks the scheme before it by looking
// back: starting at each letter that could begin a scheme rescans
// `a.a.a.…` once per letter.
const urlCredentialsPattern = /:\/\/(?<=\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@"'<>]+@/gi;

// What each pattern above cannot match without: text with none of these
// (most text) is scanned once instead of once per pattern.
const patternStartPattern = /bearer|eyJ|sk-|:\/\//i;

/** Registered values shorter than this are ignored: redacting them would shred ordinary text. */
const shortestSecret = 4;

/**
 * Removes secrets from free text: each exact value in `knownSecrets`, then
 * everything the patterns recognise.
 */
export function redactText(text: string, knownSecrets: readonly string[] = []): string {
  let result = text;
  for (const secret of knownSecrets) {
    if (secret.length >= shortestSecret && result.includes(secret)) {
      result = result.split(secret).join(redactedMarker);
    }
  }
  if (!patternStartPattern.test(result)) return result;
  return result
    .replace(bearerPattern, `$1${redactedMarker}`)
    .replace(jwtPattern, redactedMarker)
    .replace(apiKeyPattern, redactedMarker)
    .replace(urlCredentialsPattern, `://${redactedMarker}@`);
}

/**
 * Deep copy of `value` with secret-named properties replaced and secrets
 * removed from every string. Errors stay errors ({@link redactError});
 * cycles are cut.
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
  if (value instanceof Error) return redactError(value, knownSecrets);
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

/**
 * A URL with the values of its secret-named query parameters (`key`,
 * `api_key`, `token`, ...) replaced and secrets removed from the rest; text
 * that is not a URL is redacted as text.
 */
export function redactUrl(url: string, knownSecrets: readonly string[] = []): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactText(url, knownSecrets);
  }
  for (const name of new Set(parsed.searchParams.keys())) {
    if (isSecretKey(name) || name.toLowerCase() === "key")
      parsed.searchParams.set(name, redactedMarker);
  }
  return redactText(parsed.href === url ? url : parsed.href, knownSecrets);
}

/**
 * Headers with the values of secret-named headers (`authorization`,
 * `set-cookie`, ...) replaced and secrets removed from the others; the same
 * object when nothing had to change.
 */
export function redactHeaders(headers: Headers, knownSecrets: readonly string[] = []): Headers {
  let changed = false;
  const entries: Array<[string, string]> = [];
  for (const [name, value] of headers) {
    const redacted = isSecretKey(name) ? redactedMarker : redactText(value, knownSecrets);
    if (redacted !== value) changed = true;
    entries.push([name, redacted]);
  }
  return changed ? new Headers(entries) : headers;
}

/**
 * The error itself when none of its properties (message, stack, headers,
 * body, ...) nor its causes, at any depth, holds a secret; otherwise a copy
 * of the same class with the secrets removed everywhere, so `instanceof`,
 * `name`, `status` and the rest still work.
 */
export function redactError<E>(error: E, knownSecrets: readonly string[] = []): E {
  return redactErrorInner(error, knownSecrets, new WeakSet()) as E;
}

function redactErrorInner(
  error: unknown,
  knownSecrets: readonly string[],
  seen: WeakSet<object>,
): unknown {
  if (!(error instanceof Error)) return error;
  if (seen.has(error)) return error;
  seen.add(error);
  const replaced = new Map<PropertyKey, unknown>();
  for (const key of Reflect.ownKeys(error)) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key);
    if (!descriptor || !("value" in descriptor)) continue;
    const value: unknown = descriptor.value;
    const redacted = redactProperty(key, value, knownSecrets, seen);
    if (redacted !== value) replaced.set(key, redacted);
  }
  if (replaced.size === 0) return error;
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
  for (const key of Reflect.ownKeys(error)) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key);
    if (!descriptor) continue;
    if (replaced.has(key)) descriptor.value = replaced.get(key);
    Object.defineProperty(copy, key, descriptor);
  }
  return copy;
}

/** A property of an error, redacted; the same value when it holds no secret. */
function redactProperty(
  key: PropertyKey,
  value: unknown,
  knownSecrets: readonly string[],
  seen: WeakSet<object>,
): unknown {
  if (typeof value === "string") {
    if (typeof key === "string" && key !== "message" && key !== "stack" && isSecretKey(key)) {
      return value === "" ? value : redactedMarker;
    }
    return redactText(value, knownSecrets);
  }
  if (value instanceof Error) return redactErrorInner(value, knownSecrets, seen);
  if (value instanceof Headers) return redactHeaders(value, knownSecrets);
  if (value === null || typeof value !== "object") return value;
  const redacted = redactValue(value, knownSecrets);
  return sameJson(redacted, value) ? value : redacted;
}

function sameJson(first: unknown, second: unknown): boolean {
  try {
    return JSON.stringify(first) === JSON.stringify(second);
  } catch {
    return false;
  }
}

const owners = new WeakMap<object, SecretRegistry>();

/**
 * The secrets one owner (a client, an agent, the command line) was given,
 * and the registries of what it uses, applied with the patterns above.
 * Registries are linked, not merged: a callback token a client learns later
 * is redacted at once by every agent using that client.
 *
 * @example
 * const secrets = new SecretRegistry().add(apiKey).include(secretsOf(model));
 * logger.warn(secrets.redactText(`call failed: ${message}`));
 */
export class SecretRegistry {
  readonly #values = new Set<string>();
  readonly #included = new Set<SecretRegistry>();

  /** Registers secret values (`undefined` and empty ones are skipped), with their URL-encoded and JSON-escaped forms. */
  add(...values: ReadonlyArray<string | undefined>): this {
    for (const value of values) {
      if (typeof value !== "string" || value.length < shortestSecret) continue;
      this.#values.add(value);
      for (const encoded of [encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]) {
        if (encoded !== value) this.#values.add(encoded);
      }
    }
    return this;
  }

  /** Applies another owner's registry too (its later additions included). */
  include(other: SecretRegistry | undefined): this {
    if (other && other !== this) this.#included.add(other);
    return this;
  }

  /** Every registered value, the longest first so no secret is cut in part. */
  values(): string[] {
    const collected = new Set<string>();
    const visited = new Set<SecretRegistry>();
    const visit = (registry: SecretRegistry) => {
      if (visited.has(registry)) return;
      visited.add(registry);
      for (const value of registry.#values) collected.add(value);
      for (const inner of registry.#included) visit(inner);
    };
    visit(this);
    return [...collected].sort((first, second) => second.length - first.length);
  }

  /** {@link redactText} with this registry's secrets. */
  redactText(text: string): string {
    return redactText(text, this.values());
  }

  /** {@link redactValue} with this registry's secrets. */
  redactValue<T>(value: T): T {
    return redactValue(value, this.values()) as T;
  }

  /** {@link redactError} with this registry's secrets. */
  redactError<E>(error: E): E {
    return redactError(error, this.values());
  }

  /** {@link redactHeaders} with this registry's secrets. */
  redactHeaders(headers: Headers): Headers {
    return redactHeaders(headers, this.values());
  }
}

/**
 * Makes `registry` the secrets of `owner` (a client, a tool, an approver),
 * for {@link secretsOf}; returns it.
 */
export function attachSecrets<Registry extends SecretRegistry | undefined>(
  owner: object,
  registry: Registry,
): Registry {
  if (registry) owners.set(owner, registry);
  return registry;
}

/** The registry attached to `owner`, when it has one. */
export function secretsOf(owner: unknown): SecretRegistry | undefined {
  return typeof owner === "object" && owner !== null ? owners.get(owner) : undefined;
}
