import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/internal/logger.js";
import { redactText, redactValue } from "../../src/internal/redact.js";

const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.abc_DEF-123";

describe("redaction", () => {
  it("scrubs secret-named keys at any depth, keeping the rest", () => {
    const value = {
      url: "https://hooks.example/a",
      token: "verify-me",
      nested: {
        deeper: [{ Authorization: "Bearer abc", secret_phrase: "correct horse", name: "kept" }],
      },
      apiKey: "sk-123",
      encrypted_token: jwt,
    };
    expect(redactValue(value)).toEqual({
      url: "https://hooks.example/a",
      token: "[redacted]",
      nested: {
        deeper: [{ Authorization: "[redacted]", secret_phrase: "[redacted]", name: "kept" }],
      },
      apiKey: "[redacted]",
      encrypted_token: "[redacted]",
    });
    expect(value.token).toBe("verify-me");
  });

  it("scrubs bearer credentials, JWT-shaped strings and known secrets from text", () => {
    expect(redactText(`Authorization: Bearer ${jwt}`)).toBe("Authorization: Bearer [redacted]");
    expect(redactText(`token=${jwt}; ok`)).toBe("token=[redacted]; ok");
    expect(redactText("my phrase is purple-otter-42", ["purple-otter-42"])).toBe(
      "my phrase is [redacted]",
    );
  });

  it("keeps prose about bearer tokens readable", () => {
    expect(redactText("The bearer token is not valid.")).toBe("The bearer token is not valid.");
    expect(redactText("send a bearer token.")).toBe("send a bearer token.");
    expect(redactText("Bearer abc.def.ghi rejected")).toBe("Bearer [redacted] rejected");
    expect(redactText("Authorization: Bearer abc123")).toBe("Authorization: Bearer [redacted]");
    expect(redactText("Bearer sk_live_abcdefghijklmnopqrstuvwxyz")).toBe("Bearer [redacted]");
  });

  it("cuts cycles", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(redactValue(cyclic)).toEqual({ a: 1, self: "[circular]" });
  });

  it("createLogger censors tokens in logged objects", async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    });
    const logger = createLogger({ level: "trace", destination });
    logger.info(
      { headers: { authorization: `Bearer ${jwt}` }, request: { token: "t0k3n-value" } },
      "sent",
    );
    logger.flush?.();
    await new Promise((resolve) => setImmediate(resolve));
    const output = lines.join("");
    expect(output).toContain("sent");
    expect(output).not.toContain(jwt);
    expect(output).not.toContain("t0k3n-value");
  });
});
