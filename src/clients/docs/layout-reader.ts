import { closestWord } from "./closest-word.js";
import { finding, type SiteFinding } from "./site-finding.js";
import { formatKey, type KeyPath, type LineLocator } from "./source-lines.js";

/** Reads keys of the layout and turns a bad one into a finding. */
export class LayoutReader {
  readonly findings: SiteFinding[] = [];

  constructor(
    readonly layout: Record<string, unknown>,
    readonly file: string,
    readonly locate: LineLocator,
  ) {}

  /** The value at `path`, or undefined when a parent is absent or not an object. */
  get(path: KeyPath): unknown {
    let value: unknown = this.layout;
    for (const segment of path) {
      if (typeof segment === "number") {
        if (!Array.isArray(value)) return undefined;
        value = value[segment];
      } else {
        if (!isObject(value)) return undefined;
        value = value[segment];
      }
    }
    return value;
  }

  /** Where `path` is, for a finding. */
  where(path: KeyPath, operation?: string) {
    return { file: this.file, key: formatKey(path), line: this.locate(path), operation };
  }

  /** Records a wrongly typed or unknown value. */
  invalid(path: KeyPath, message: string, fix: string): void {
    this.findings.push(finding("error", "config-invalid", this.where(path), message, fix));
  }

  /** Records a navigation shape problem. */
  navigationInvalid(path: KeyPath, message: string, fix: string): void {
    this.findings.push(finding("error", "navigation-invalid", this.where(path), message, fix));
  }

  /** An object at `path` (undefined when absent); any other type is a finding. */
  object(path: KeyPath, example: string): Record<string, unknown> | undefined {
    const value = this.get(path);
    if (value === undefined) return undefined;
    if (isObject(value)) return value;
    this.invalid(
      path,
      `${formatKey(path)} is ${describe(value)}, expected an object`,
      `Write ${formatKey(path)} as an object, e.g. ${example}.`,
    );
    return undefined;
  }

  /** A string at `path` (undefined when absent); any other type is a finding. */
  string(path: KeyPath, example: string): string | undefined {
    const value = this.get(path);
    if (value === undefined || typeof value === "string") return value;
    this.invalid(
      path,
      `${formatKey(path)} is ${describe(value)}, expected a string`,
      `Set ${formatKey(path)} to a string, e.g. ${example}.`,
    );
    return undefined;
  }

  /** A boolean at `path` (undefined when absent); any other type is a finding. */
  boolean(path: KeyPath): boolean | undefined {
    const value = this.get(path);
    if (value === undefined || typeof value === "boolean") return value;
    this.invalid(
      path,
      `${formatKey(path)} is ${describe(value)}, expected true or false`,
      `Set ${formatKey(path)} to true or false (without quotes).`,
    );
    return undefined;
  }

  /** A string that must be one of `allowed`; an unknown one is a finding naming the closest. */
  oneOf(path: KeyPath, allowed: readonly string[]): void {
    const value = this.string(path, `"${allowed[0]}"`);
    if (value === undefined || allowed.includes(value)) return;
    const closest = closestWord(value, allowed);
    this.invalid(
      path,
      `${formatKey(path)} is "${value}", which the service does not know (allowed: ${allowed.join(", ")})`,
      closest
        ? `Use "${closest}".`
        : `Use one of ${allowed.map((item) => `"${item}"`).join(", ")}.`,
    );
  }
}

/** True for `{...}` (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short description of a value's type for messages. */
export function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return value === "" ? "an empty string" : `the string "${value}"`;
  return `${typeof value === "object" ? "an" : "a"} ${typeof value}`;
}
