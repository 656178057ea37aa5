import { randomUUID } from "node:crypto";

/**
 * A small deterministic pseudo-random source (mulberry32) for simulator seed
 * data and ids: the same seed gives the same records and UUIDs on every run,
 * so tests and examples can rely on them. Not for anything secret.
 */
export class SeededRandom {
  #state: number;

  /** @param seed any 32-bit integer; equal seeds give equal sequences. */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let value = this.#state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [minimum, maximum], both included. */
  integer(minimum: number, maximum: number): number {
    return minimum + Math.floor(this.next() * (maximum - minimum + 1));
  }

  /** True with the given probability. */
  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("SeededRandom.pick needs a non-empty list");
    return item;
  }

  /** One element chosen by weight: `[[value, weight], ...]`. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let remaining = this.next() * total;
    for (const [value, weight] of entries) {
      remaining -= weight;
      if (remaining < 0) return value;
    }
    const last = entries[entries.length - 1];
    if (last === undefined) throw new Error("SeededRandom.weighted needs a non-empty list");
    return last[0];
  }

  /** A version 4 UUID built from this sequence. */
  uuid(): string {
    const bytes: number[] = [];
    for (let index = 0; index < 16; index += 1) bytes.push(Math.floor(this.next() * 256));
    bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
    bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
    const hex = bytes.map((byte) => byte.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** A string of `length` characters from `alphabet`. */
  characters(length: number, alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"): string {
    let result = "";
    for (let index = 0; index < length; index += 1) result += this.pick([...alphabet]);
    return result;
  }
}

/**
 * Where a simulator's new ids come from: when the caller gave a seed, the
 * UUIDs of that seed's {@link SeededRandom} (equal seeds give equal ids, for
 * tests that want them); otherwise `crypto.randomUUID()`, unguessable and
 * fresh on every start, so an id recorded against an earlier start (a used
 * approval, say) never meets a new record that happens to share it.
 */
export function uuidSource(seeded: SeededRandom | undefined): () => string {
  if (seeded === undefined) return () => randomUUID();
  return () => seeded.uuid();
}
