/**
 * Reads one object of a service answer tolerantly: ids may be strings or
 * integers, `null` counts as absent, a field of the wrong type is left out of
 * the known fields but kept under its wire name, and every problem that makes
 * the answer unusable is collected (not thrown) so all are reported at once.
 */
export class WireRecord {
  readonly #fields: Record<string, unknown>;
  readonly #consumed = new Set<string>();
  readonly #problems: string[];
  readonly #prefix: string;

  /** `prefix` names the object in problems, e.g. `answer.`. */
  constructor(fields: Record<string, unknown>, problems: string[], prefix = "") {
    this.#fields = fields;
    this.#problems = problems;
    this.#prefix = prefix;
  }

  /** Wraps `value` when it is a plain object; otherwise records a problem. */
  static from(value: unknown, problems: string[], label: string): WireRecord | undefined {
    if (isPlainObject(value)) return new WireRecord(value, problems, label ? `${label}.` : "");
    problems.push(`${label || "the body"} is ${describe(value)}, expected a JSON object`);
    return undefined;
  }

  /** An id field; when absent, `fallback` (the id the caller asked for) is used. */
  id(key: string, fallback?: string): string | undefined {
    const value = this.optionalId(key);
    if (value !== undefined) return value;
    if (fallback !== undefined) return fallback;
    this.#problems.push(`${this.#prefix}${key} is ${describe(this.#fields[key])}, expected an id`);
    return undefined;
  }

  /** An optional id field (string or integer). */
  optionalId(key: string): string | undefined {
    const value = this.#fields[key];
    if (typeof value === "string" && value.trim() !== "") return this.#take(key, value);
    if (typeof value === "number" && Number.isSafeInteger(value))
      return this.#take(key, String(value));
    if (value === null) this.#consumed.add(key);
    return undefined;
  }

  /**
   * A state field, lower-cased, with the British `cancelled` read as
   * `canceled`; `fallback` when absent (e.g. `accepted` for a 2xx receipt).
   */
  state(key: string, fallback?: string): string | undefined {
    const value = this.#fields[key];
    if (typeof value === "string" && value.trim() !== "") {
      const normalized = value.trim().toLowerCase();
      return this.#take(key, normalized === "cancelled" ? "canceled" : normalized);
    }
    if (fallback !== undefined && (value === undefined || value === null)) {
      this.#consumed.add(key);
      return fallback;
    }
    this.#problems.push(`${this.#prefix}${key} is ${describe(value)}, expected a state name`);
    return undefined;
  }

  /** An optional string field. */
  optionalString(key: string): string | undefined {
    const value = this.#fields[key];
    if (typeof value === "string") return this.#take(key, value);
    if (value === null) this.#consumed.add(key);
    return undefined;
  }

  /** A timestamp field: strings as sent, numbers (seconds or milliseconds) as ISO 8601. */
  optionalTimestamp(key: string): string | undefined {
    const value = this.#fields[key];
    if (typeof value === "number" && Number.isFinite(value)) {
      // Below 1e11 a number is seconds since the epoch (1e11 s is the year 5138).
      const milliseconds = Math.abs(value) < 1e11 ? value * 1000 : value;
      const date = new Date(milliseconds);
      if (!Number.isNaN(date.getTime())) return this.#take(key, date.toISOString());
    }
    return this.optionalString(key);
  }

  /** The raw value of a field, marked as read. */
  raw(key: string): unknown {
    this.#consumed.add(key);
    return this.#fields[key];
  }

  /** Every field not read into a known property, under its wire name. */
  extras(): Record<string, unknown> {
    // Null-prototype: the names are the service's, `__proto__` included.
    const extras: Record<string, unknown> = Object.create(null);
    for (const [key, value] of Object.entries(this.#fields)) {
      if (!this.#consumed.has(key)) extras[key] = value;
    }
    return extras;
  }

  #take<T>(key: string, value: T): T {
    this.#consumed.add(key);
    return value;
  }
}

/** True for `{...}` (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return value.trim() === "" ? "an empty string" : "a string";
  return `a ${typeof value}`;
}
