import { describe, expect, it } from "vitest";
import { SecretRegistry } from "../../src/internal/redact.js";
import { StreamingRedactor } from "../../src/internal/streaming-redactor.js";

/** What goes out for `text` streamed in these pieces: each push's answer, then the flush. */
function streamed(secrets: SecretRegistry, pieces: readonly string[]): string[] {
  const redactor = new StreamingRedactor(secrets);
  return [...pieces.map((piece) => redactor.push(piece)), redactor.flush()];
}

describe("StreamingRedactor", () => {
  const secrets = new SecretRegistry().add("hunter2-key", "k3y");
  const text = 'say "hunter2-key" twice: hunter2-keyhunter2-key, and k3y; the end hunter2';

  it("sends what the whole text redacted would be, wherever the text is cut", () => {
    const whole = secrets.redactText(text);
    expect(whole).not.toContain("hunter2-key");
    for (let first = 0; first <= text.length; first++) {
      for (let second = first; second <= text.length; second += 3) {
        const out = streamed(secrets, [
          text.slice(0, first),
          text.slice(first, second),
          text.slice(second),
        ]);
        expect(out.join("")).toBe(whole);
        for (const part of out) expect(part).not.toContain("hunter2-key");
      }
    }
  });

  it("sends no piece of a secret split between two pieces before the rest arrives", () => {
    const redactor = new StreamingRedactor(secrets);
    const first = redactor.push("token: hunter");
    expect(first).toBe("tok");
    expect(redactor.push("2-key.")).toBe("en: ");
    expect(redactor.flush()).toBe("[redacted].");
  });

  it("holds nothing back without registered secrets", () => {
    expect(streamed(new SecretRegistry(), ["plain ", "text"])).toEqual(["plain ", "text", ""]);
  });
});
