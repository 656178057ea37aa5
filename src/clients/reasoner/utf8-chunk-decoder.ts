/**
 * Decodes UTF-8 text arriving in chunks, as `new TextDecoder()` with
 * `decode(chunk, { stream: true })` does (a character split across chunks
 * decoded whole, invalid bytes as U+FFFD, a byte order mark at the start
 * dropped), for a fraction of its cost on short streams: a TextDecoder
 * costs microseconds to make, more than decoding a short answer. A chunk
 * is decoded by `Buffer.toString`; only the bytes of a character it cuts
 * off at its end wait for the next chunk.
 */
export class Utf8ChunkDecoder {
  /** The start of a character cut off at the end of the last chunk. */
  #carried: Uint8Array | undefined;
  #atStart = true;

  /** The text of `chunk`, without the start of a character it ends in. */
  decode(chunk: Uint8Array): string {
    let bytes = chunk;
    if (this.#carried) {
      bytes = Buffer.concat([this.#carried, chunk]);
      this.#carried = undefined;
    }
    const cut = cutCharacterLength(bytes);
    if (cut > 0) {
      this.#carried = bytes.subarray(bytes.length - cut);
      bytes = bytes.subarray(0, bytes.length - cut);
    }
    return this.#text(bytes);
  }

  /** The end of the text: a character left unfinished is U+FFFD. */
  end(): string {
    const carried = this.#carried;
    this.#carried = undefined;
    return carried ? this.#text(carried) : "";
  }

  #text(bytes: Uint8Array): string {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
    if (!this.#atStart || text === "") return text;
    this.#atStart = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}

/**
 * How many bytes at the end of `bytes` are the start of a character whose
 * remaining bytes have not come yet (0 to 3): a lead byte among the last
 * three, with fewer bytes after it than its character needs.
 */
function cutCharacterLength(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let back = 1; back <= 3 && back <= end; back++) {
    const byte = bytes[end - back]!;
    if (byte < 0x80) return 0;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return length > back ? back : 0;
    }
  }
  return 0;
}
