/** A planned failure: the next matching request(s) get this answer instead of the real one. */
export interface FaultRule {
  /** Only requests with this method (any when omitted). */
  method?: string;
  /** Only this path relative to the base path (`/callbacks`), or paths matching the pattern. */
  path?: string | RegExp;
  /**
   * Status code to answer, e.g. 429 or 503. Without it (and with
   * `delayMs`) the request gets its real answer, late.
   */
  status?: number;
  /**
   * Holds the request this many milliseconds first: a slow service. With no
   * `status`, the request then takes effect and is answered as usual (a client
   * that gave up meanwhile does not undo it).
   */
  delayMs?: number;
  /** Body: an object is sent as JSON, a string as text; default is the simulator's error body. */
  body?: unknown;
  /** Extra headers, e.g. `{ "retry-after": "0" }`. */
  headers?: Record<string, string>;
  /** How many matching requests fail. @default 1 */
  times?: number;
}

/** Holds planned failures and hands out the one that applies to a request. */
export class FaultInjector {
  #rules: { rule: FaultRule; remaining: number }[] = [];

  /** Plans a failure; rules are used in the order they were added. */
  add(rule: FaultRule): void {
    const times = rule.times ?? 1;
    if (!Number.isInteger(times) || times < 1) {
      throw new RangeError(`failNext: times must be a positive integer, got ${String(rule.times)}`);
    }
    const delayed = rule.delayMs !== undefined;
    if (delayed && (!Number.isInteger(rule.delayMs) || (rule.delayMs ?? 0) < 0)) {
      throw new RangeError(
        `failNext: delayMs must be a whole number of milliseconds, got ${String(rule.delayMs)}`,
      );
    }
    const status = rule.status;
    if (
      (status !== undefined || !delayed) &&
      (!Number.isInteger(status) || (status ?? 0) < 100 || (status ?? 0) > 599)
    ) {
      throw new RangeError(
        `failNext: status must be an HTTP status code (or give delayMs alone for a slow answer), got ${String(status)}`,
      );
    }
    this.#rules.push({ rule, remaining: times });
  }

  /** The rule for this request, counting it as used; undefined when none applies. */
  take(method: string, path: string): FaultRule | undefined {
    const entry = this.#rules.find(({ rule }) => matches(rule, method, path));
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining === 0) this.#rules.splice(this.#rules.indexOf(entry), 1);
    return entry.rule;
  }

  /** Drops every planned failure. */
  clear(): void {
    this.#rules = [];
  }
}

function matches(rule: FaultRule, method: string, path: string): boolean {
  if (rule.method !== undefined && rule.method.toUpperCase() !== method) return false;
  if (rule.path === undefined) return true;
  if (typeof rule.path === "string") return normalizePath(rule.path) === path;
  return rule.path.test(path);
}

/** Collapses repeated slashes and drops a trailing one, so `/a//b/` equals `/a/b`. */
export function normalizePath(path: string): string {
  const collapsed = path.replace(/\/{2,}/g, "/");
  return collapsed.length > 1 && collapsed.endsWith("/") ? collapsed.slice(0, -1) : collapsed;
}
