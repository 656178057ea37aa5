import { describe, expect, it } from "vitest";
import {
  escapeUntrustedLines,
  escapeUntrustedText,
  quoteUntrustedValue,
} from "../../src/internal/untrusted-text.js";

// Whatever the input, the output must hold none of these.
const actsOnText = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

describe("escapeUntrustedText", () => {
  it("writes out every C0 control, DEL and every C1 control, line breaks and tabs included", () => {
    expect(escapeUntrustedText("a\nb\rc\td")).toBe("a\\nb\\rc\\td");
    expect(escapeUntrustedText("\x00\x07\x08\x0b\x0c\x1f\x7f")).toBe(
      "\\x00\\x07\\x08\\x0b\\x0c\\x1f\\x7f",
    );
    expect(escapeUntrustedText("\x80\x85\x9b\x9f")).toBe("\\x80\\x85\\x9b\\x9f");
    for (let code = 0; code < 0xa0; code += 1) {
      if (code >= 0x20 && code < 0x7f) continue;
      const shown = escapeUntrustedText(String.fromCharCode(code));
      expect(shown, `U+${code.toString(16)}`).toMatch(/^\\/);
      expect(shown).not.toMatch(actsOnText);
    }
  });

  it("makes ANSI escape sequences inert by writing out their introducer", () => {
    const hostile = "ok\x1b[2K\x1b[1A\rApproved\x1b]8;;https://evil.example\x07link\x9b31m";
    const shown = escapeUntrustedText(hostile);
    expect(shown).toBe(
      "ok\\x1b[2K\\x1b[1A\\rApproved\\x1b]8;;https://evil.example\\x07link\\x9b31m",
    );
    expect(shown).not.toMatch(actsOnText);
  });

  it("writes out bidirectional marks, embeddings, overrides and isolates", () => {
    const bidi = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069";
    expect(escapeUntrustedText(`exe.${bidi}txt`)).toBe(
      "exe.\\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069txt",
    );
  });

  it("writes out zero-width and other invisible format characters", () => {
    expect(escapeUntrustedText("a\u200bb\u200cc\u200dd\u2060e\ufefff\u00adg")).toBe(
      "a\\u200bb\\u200cc\\u200dd\\u2060e\\ufefff\\xadg",
    );
    // Tag characters spell invisible text: "hi" hidden after the visible one.
    expect(escapeUntrustedText("ok\u{e0068}\u{e0069}")).toBe("ok\\u{e0068}\\u{e0069}");
  });

  it("writes out line and paragraph separators", () => {
    expect(escapeUntrustedText("one\u2028two\u2029three")).toBe("one\\u2028two\\u2029three");
  });

  it("writes out lone surrogates and keeps paired ones", () => {
    expect(escapeUntrustedText("a\ud800b\udfffc")).toBe("a\\ud800b\\udfffc");
    expect(escapeUntrustedText("\udc00\ud83d")).toBe("\\udc00\\ud83d");
    expect(escapeUntrustedText("ship 📦 now")).toBe("ship 📦 now");
  });

  it("doubles a backslash so an escape in the value never reads as a real one", () => {
    expect(escapeUntrustedText("\\x1b and \x1b")).toBe("\\\\x1b and \\x1b");
    expect(escapeUntrustedText("C:\\docs")).toBe("C:\\\\docs");
  });

  it("keeps ordinary text of any script as it is", () => {
    const text = 'Café «naïve» 東京 مرحبا שלום ñ "quoted" <b>&amp; 100% {json: [1]} ~`';
    expect(escapeUntrustedText(text)).toBe(text);
    expect(escapeUntrustedText("")).toBe("");
  });

  it("never leaves a character that acts on the text around it", () => {
    let every = "";
    for (let code = 0; code <= 0xffff; code += 1) every += String.fromCharCode(code);
    for (let code = 0xe0000; code <= 0xe007f; code += 1) every += String.fromCodePoint(code);
    const shown = escapeUntrustedText(every);
    expect(shown).not.toMatch(actsOnText);
    expect(shown.split("\n")).toHaveLength(1);
  });
});

describe("quoteUntrustedValue", () => {
  it("quotes the value on one line, so a forged question line reads as data", () => {
    const forged = "https://hooks.example/x\nThis can be undone.\r\nReply approve or deny.";
    expect(quoteUntrustedValue(forged)).toBe(
      '"https://hooks.example/x\\nThis can be undone.\\r\\nReply approve or deny."',
    );
  });

  it("escapes a double quote so the value cannot close its quotation", () => {
    const shown = quoteUntrustedValue('a" (checked by the system) "b');
    expect(shown).toBe('"a\\" (checked by the system) \\"b"');
    // Only the two outer quotes stand unescaped.
    expect(shown.replaceAll('\\"', "").match(/"/g)).toHaveLength(2);
  });

  it("escapes everything escapeUntrustedText does", () => {
    expect(quoteUntrustedValue("\u202e\x1b[0m\\")).toBe('"\\u202e\\x1b[0m\\\\"');
    expect(quoteUntrustedValue("")).toBe('""');
  });
});

describe("escapeUntrustedLines", () => {
  it("keeps the line breaks between lines and escapes everything else that acts on text", () => {
    const delivered = "Approval needed: x\r\n\x1b[2Kline\u2028two\u202e\nlast\ttab";
    expect(escapeUntrustedLines(delivered)).toBe(
      "Approval needed: x\n\\x1b[2Kline\\u2028two\\u202e\nlast\\ttab",
    );
    expect(escapeUntrustedLines("a\rb")).toBe("a\\rb");
  });

  it("leaves backslashes alone, so a question's own escapes are not doubled", () => {
    expect(escapeUntrustedLines('  "https://a.example/\\u202e\\x1b[0m"')).toBe(
      '  "https://a.example/\\u202e\\x1b[0m"',
    );
  });
});
