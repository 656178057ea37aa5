import { describe, expect, it } from "vitest";
import {
  editableJson,
  escapeUntrustedLines,
  escapeUntrustedText,
  quoteUntrustedValue,
} from "../../src/internal/untrusted-text.js";

// Whatever the input, the output must hold none of these.
const actsOnText =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}\u2800\uff02\u201c-\u201f]|(?! )\p{Zs}/u;

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

  it("writes out what is drawn as nothing: Hangul fillers, the braille blank, variation selectors", () => {
    expect(escapeUntrustedText("a\u3164b\u115fc\u1160d\uffa0e\u2800f\u034fg\ufe0fh")).toBe(
      "a\\u3164b\\u115fc\\u1160d\\uffa0e\\u2800f\\u034fg\\ufe0fh",
    );
  });

  it("writes out every space but the ordinary one, and a run of more than four of those", () => {
    const wide =
      "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000";
    expect(escapeUntrustedText(`a${wide}b`)).toBe(
      "a\\xa0\\u1680\\u2000\\u2001\\u2002\\u2003\\u2004\\u2005\\u2006\\u2007\\u2008\\u2009\\u200a\\u202f\\u205f\\u3000b",
    );
    expect(escapeUntrustedText("a b  c    d      e")).toBe("a b  c    d    \\x20\\x20e");
  });

  it("writes out the characters that pass for a double quote", () => {
    expect(
      escapeUntrustedText(
        "\uff02\u201c\u201d\u201e\u201f\u2033\u2036\u02ba\u02dd\u02ee\u05f4\u275d\u275e\u3003\u301d\u301e\u301f\u{1f676}\u{1f678}",
      ),
    ).toBe(
      "\\uff02\\u201c\\u201d\\u201e\\u201f\\u2033\\u2036\\u02ba\\u02dd\\u02ee\\u05f4\\u275d\\u275e\\u3003\\u301d\\u301e\\u301f\\u{1f676}\\u{1f678}",
    );
  });

  it("writes out every combining mark, on a letter or not, and keeps accented letters typed as one", () => {
    expect(escapeUntrustedText('done"\u0338 \u20dd1\u0301')).toBe('done"\\u0338 \\u20dd1\\u0301');
    // A strike-through overlay on each letter reads as "deleted" text: it shows as what it is.
    expect(escapeUntrustedText("d\u0336e\u0336n\u0336y\u0336 approve")).toBe(
      "d\\u0336e\\u0336n\\u0336y\\u0336 approve",
    );
    // Spacing (Mc) and enclosing (Me) marks too.
    expect(escapeUntrustedText("\u0903 a\u20dd \u0488")).toBe("\\u0903 a\\u20dd \\u0488");
    expect(escapeUntrustedText("cafe\u0301 caf\u00e9 \u017e\u00fc\u0159")).toBe(
      "cafe\\u0301 caf\u00e9 \u017e\u00fc\u0159",
    );
    expect(escapeUntrustedText("a\u0301\u0302")).toBe("a\\u0301\\u0302");
    expect(escapeUntrustedLines("x\u0336y")).toBe("x\\u0336y");
    expect(quoteUntrustedValue("\u0336")).toBe('"\\u0336"');
  });

  it("shows the host of every URL in its ASCII (punycode) form", () => {
    expect(escapeUntrustedText("to https://\u0430pple.com/pay?x=1 now")).toBe(
      "to https://xn--pple-43d.com/pay?x=1 now",
    );
    expect(escapeUntrustedText("http://user@b\u00fccher.example:8080/a")).toBe(
      "http://user@xn--bcher-kva.example:8080/a",
    );
    // Fullwidth letters are the host a connection would reach.
    expect(escapeUntrustedText("https://\uff45xample.com/")).toBe("https://example.com/");
    expect(escapeUntrustedText("https://Hooks.Example.com/x")).toBe("https://Hooks.Example.com/x");
    // A host no URL parser takes is escaped character by character.
    expect(escapeUntrustedText("https://a\u202eb.com/")).toBe("https://a\\u202eb.com/");
  });

  it("keeps ordinary text of any script as it is, but for its combining marks", () => {
    const text = 'Café «naïve» 東京 مرحبا שלום ñ "quoted" <b>&amp; 100% {json: [1]} ~` 👍🏽 ｱｲ';
    expect(escapeUntrustedText(text)).toBe(text);
    // A script written with marks shows them written out: each could be an overlay.
    expect(escapeUntrustedText("नमस्ते")).toBe("नमस\\u094dत\\u0947");
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

  it("writes out look-alikes and blanks too, keeps indentation, and shows hosts in ASCII", () => {
    expect(escapeUntrustedLines("    code\u3000\uff02\n  at https://\u0430pple.com/")).toBe(
      "    code\\u3000\\uff02\n  at https://xn--pple-43d.com/",
    );
  });

  it("leaves backslashes alone, so a question's own escapes are not doubled", () => {
    expect(escapeUntrustedLines('  "https://a.example/\\u202e\\x1b[0m"')).toBe(
      '  "https://a.example/\\u202e\\x1b[0m"',
    );
  });
});

describe("editableJson", () => {
  it("writes out, as JSON escapes, what would hide or act on the text, and parses back to the same value", () => {
    const value = {
      url: "https://a.example/\u202egpj.exe",
      text: "x\u0301 \u0301 \x1b[2K \u00a0\u200b \u{e0041} \uff02 tab\t",
      kept: "caf\u00e9 \u{1f44d} \u0436",
      ids: [1, 2],
    };
    const json = editableJson(value, 2);
    expect(json).toContain('"url": "https://a.example/\\u202egpj.exe"');
    expect(json).toContain(
      '"text": "x\\u0301 \\u0301 \\u001b[2K \\u00a0\\u200b \\udb40\\udc41 \\uff02 tab\\t"',
    );
    expect(json).toContain('"kept": "caf\u00e9 \u{1f44d} \u0436"');
    expect(json.split("\n")).toHaveLength(9);
    expect(JSON.parse(json)).toEqual(value);
  });
});
