import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Utf8ChunkDecoder } from "../../../src/clients/reasoner/utf8-chunk-decoder.js";

/** The text of `chunks` read one after the other by a decoder. */
function decodeAll(chunks: readonly Uint8Array[]): string {
  const decoder = new Utf8ChunkDecoder();
  return chunks.map((chunk) => decoder.decode(chunk)).join("") + decoder.end();
}

/** The same with the platform's streaming TextDecoder, the behaviour to match. */
function decodeWithTextDecoder(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder();
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join("") + decoder.decode();
}

const bytes = (...values: number[]) => Uint8Array.from(values);

describe("Utf8ChunkDecoder", () => {
  it("decodes a character split across chunks whole", () => {
    // "é€😀" cut inside each character.
    const chunks = [
      bytes(0x41, 0xc3),
      bytes(0xa9, 0xe2, 0x82),
      bytes(0xac, 0xf0, 0x9f, 0x98),
      bytes(0x80),
    ];
    expect(decodeAll(chunks)).toBe("Aé€😀");
  });

  it("drops a byte order mark at the start only, even split", () => {
    expect(decodeAll([bytes(0xef, 0xbb), bytes(0xbf, 0x41, 0xef, 0xbb, 0xbf)])).toBe("A\ufeff");
  });

  it("ends a character left unfinished as U+FFFD, and invalid bytes too", () => {
    expect(decodeAll([bytes(0x41, 0xf0, 0x9f)])).toBe("A\ufffd");
    expect(decodeAll([bytes(0xff, 0x41, 0xc0, 0x80)])).toBe(
      decodeWithTextDecoder([bytes(0xff, 0x41, 0xc0, 0x80)]),
    );
  });

  it("decodes any bytes cut anywhere as TextDecoder does", () => {
    // Bytes that make and break UTF-8 sequences: ASCII, leads, continuations,
    // a byte order mark's, a surrogate's lead, never-valid bytes.
    const interesting = [
      0x41, 0x0a, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xef, 0xbb, 0xbf, 0xed,
      0xa0, 0xff, 0xc0, 0xf4, 0x90, 0xe0,
    ];
    const byte = fc.oneof(fc.constantFrom(...interesting), fc.integer({ min: 0, max: 255 }));
    const chunked = fc
      .tuple(fc.array(byte, { maxLength: 24 }), fc.array(fc.nat(24), { maxLength: 5 }))
      .map(([values, cuts]) => {
        const all = Uint8Array.from(values);
        const points = [...new Set(cuts.map((cut) => Math.min(cut, all.length)))].sort(
          (a, b) => a - b,
        );
        const edges = [0, ...points, all.length];
        return edges.slice(1).map((end, index) => all.subarray(edges[index], end));
      });
    fc.assert(
      fc.property(chunked, (chunks) => {
        expect(decodeAll(chunks)).toBe(decodeWithTextDecoder(chunks));
      }),
      { numRuns: 5000 },
    );
  });
});
