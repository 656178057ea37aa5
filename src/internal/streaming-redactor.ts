import { redactText, type SecretRegistry } from "./redact.js";

/**
 * Redacts text that arrives in pieces (a model's streamed text or tool-call
 * arguments) before it goes out in pieces: a registered secret split across
 * two pieces is removed as if the text had come whole. One per stream.
 *
 * @example
 * const redactor = new StreamingRedactor(secrets);
 * for await (const delta of deltas) send(redactor.push(delta));
 * send(redactor.flush());
 */
export class StreamingRedactor {
  readonly #secrets: SecretRegistry;
  #pending = "";

  constructor(secrets: SecretRegistry) {
    this.#secrets = secrets;
  }

  /**
   * What can go out after `piece`, redacted (often `""`): the text received
   * so far, less a tail that could still become a registered secret.
   */
  push(piece: string): string {
    this.#pending += piece;
    const secrets = this.#secrets.values();
    const cut = safeCut(this.#pending, secrets);
    const ready = this.#pending.slice(0, cut);
    this.#pending = this.#pending.slice(cut);
    return ready === "" ? "" : redactText(ready, secrets);
  }

  /** The tail held back, redacted: what goes out when the stream ends. */
  flush(): string {
    const rest = this.#pending;
    this.#pending = "";
    return rest === "" ? "" : this.#secrets.redactText(rest);
  }
}

/**
 * Where `text` can be cut so that no secret is cut: a tail as long as the
 * longest secret less one is kept (it may be a secret's beginning), and a
 * cut through a secret that `text` holds whole moves to before that secret.
 */
function safeCut(text: string, secrets: readonly string[]): number {
  const longest = secrets[0]?.length ?? 0;
  let cut = Math.max(0, text.length - Math.max(0, longest - 1));
  for (let moved = true; moved; ) {
    moved = false;
    for (const secret of secrets) {
      const at = text.indexOf(secret, Math.max(0, cut - secret.length + 1));
      if (at !== -1 && at < cut) {
        cut = at;
        moved = true;
      }
    }
  }
  return cut;
}
