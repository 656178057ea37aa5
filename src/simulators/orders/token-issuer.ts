import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";

/**
 * Issues and checks the order service's bearer tokens: JWTs (`eyJ...`) signed
 * with HMAC-SHA256 by a key private to this simulator instance, so a token of
 * one instance (say, sandbox) is refused by another (production). The payload
 * carries a keyed hash of the secret phrase, never the phrase. Like the real
 * service, tokens are not stored: deleting a phrase removes it from the
 * phrase table, so every token of it stops working, and a phrase registered
 * again gets a new generation that old tokens do not carry.
 */
export class TokenIssuer {
  readonly #key = randomBytes(32);
  readonly #audience: string;
  readonly #phrases = new Map<string, number>();
  #generations = 0;

  /** @param audience the account slug tokens are issued for. */
  constructor(audience: string) {
    this.#audience = audience;
  }

  /** A new token for the phrase; registers the phrase when it is new. */
  issue(secretPhrase: string, now: Date = new Date()): string {
    const phraseHash = this.#hashPhrase(secretPhrase);
    let generation = this.#phrases.get(phraseHash);
    if (generation === undefined) {
      this.#generations += 1;
      generation = this.#generations;
      this.#phrases.set(phraseHash, generation);
    }
    const header = encodeSegment({ alg: "HS256", typ: "JWT" });
    const payload = encodeSegment({
      aud: this.#audience,
      phr: phraseHash,
      gen: generation,
      iat: Math.floor(now.getTime() / 1000),
      jti: randomUUID(),
    });
    return `${header}.${payload}.${this.#sign(`${header}.${payload}`)}`;
  }

  /** True when the token was signed here and its phrase has not been deleted since. */
  verify(token: string): boolean {
    const parts = token.split(".");
    if (parts.length !== 3) return false;
    const [header = "", payload = "", signature = ""] = parts;
    const expected = Buffer.from(this.#sign(`${header}.${payload}`));
    const actual = Buffer.from(signature);
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return false;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      return false;
    }
    if (typeof claims !== "object" || claims === null) return false;
    const { phr, gen, aud } = claims as Record<string, unknown>;
    return aud === this.#audience && typeof phr === "string" && this.#phrases.get(phr) === gen;
  }

  /** Forgets the phrase, invalidating all its tokens; false when it was unknown. */
  revoke(secretPhrase: string): boolean {
    return this.#phrases.delete(this.#hashPhrase(secretPhrase));
  }

  #hashPhrase(secretPhrase: string): string {
    return createHmac("sha256", this.#key).update(`phrase:${secretPhrase}`).digest("base64url");
  }

  #sign(data: string): string {
    return createHmac("sha256", this.#key).update(data).digest("base64url");
  }
}

function encodeSegment(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}
