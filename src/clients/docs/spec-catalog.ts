import { closestPaths } from "./closest-paths.js";
import { type LoadedSpec, loadOpenApiSpec } from "./openapi-spec.js";
import { isAbsoluteUrl } from "./operation-reference.js";
import { finding, type LocationDraft, type SiteFinding } from "./site-finding.js";

/** A spec path the layout names, and where it names it. */
export interface SpecReference {
  path: string;
  where: LocationDraft;
}

/** What a spec name resolves to. */
export type SpecLookup =
  | { status: "loaded"; spec: LoadedSpec }
  /** Absent, unreadable or unchecked: already reported, so references to it are not. */
  | { status: "unusable"; path: string }
  | { status: "unknown" };

/**
 * The OpenAPI files of a site: every file given is loaded and checked, and
 * every file the layout names but was not given is reported (the first
 * cause of a blank page). Resolves spec names as written in references: a
 * path, a file name, or a file name without extension.
 */
export class SpecCatalog {
  readonly findings: SiteFinding[] = [];
  readonly #loaded = new Map<string, LoadedSpec>();
  readonly #unusable = new Map<string, string>();

  constructor(
    openapi: Record<string, unknown>,
    referenced: readonly SpecReference[],
    files: readonly string[],
  ) {
    for (const [path, source] of Object.entries(openapi)) {
      const { spec, findings } = loadOpenApiSpec(path, source);
      this.findings.push(...findings);
      if (spec) this.#loaded.set(normalizeSpecPath(path), spec);
      else this.#unusable.set(normalizeSpecPath(path), path);
    }
    const reported = new Set<string>();
    for (const reference of referenced) {
      const key = normalizeSpecPath(reference.path);
      if (this.#loaded.has(key) || this.#unusable.has(key) || reported.has(key)) continue;
      reported.add(key);
      this.#unusable.set(key, reference.path);
      this.findings.push(this.#absent(reference, [...files, ...Object.keys(openapi)]));
    }
  }

  /** Every spec that loaded. */
  get specs(): LoadedSpec[] {
    return [...this.#loaded.values()];
  }

  /** Every spec path known, loaded or not, as given. */
  get paths(): string[] {
    return [...this.#loaded.values()].map((spec) => spec.path).concat([...this.#unusable.values()]);
  }

  /** Resolves a spec name: exact path first, then a unique file name or file stem. */
  lookup(name: string): SpecLookup {
    const key = normalizeSpecPath(name);
    const exact = this.#find(key);
    if (exact) return exact;
    for (const shorten of [baseName, stem]) {
      const matches = [...new Set([...this.#loaded.keys(), ...this.#unusable.keys()])].filter(
        (path) => shorten(path) === shorten(key),
      );
      if (matches.length === 1) return this.#find(matches[0]!)!;
    }
    return { status: "unknown" };
  }

  /** True when `spec` is what `name` resolves to. */
  is(name: string | undefined, spec: LoadedSpec): boolean {
    if (name === undefined) return false;
    const lookup = this.lookup(name);
    return lookup.status === "loaded" && lookup.spec === spec;
  }

  #find(key: string): SpecLookup | undefined {
    const spec = this.#loaded.get(key);
    if (spec) return { status: "loaded", spec };
    const path = this.#unusable.get(key);
    if (path !== undefined) return { status: "unusable", path };
    return undefined;
  }

  #absent(reference: SpecReference, files: readonly string[]): SiteFinding {
    if (isAbsoluteUrl(reference.path)) {
      return finding(
        "warning",
        "spec-not-checked",
        reference.where,
        `${reference.path} is a remote OpenAPI file, which this check did not read`,
        `Pass its text in the openapi input under the key "${reference.path}" to check it.`,
      );
    }
    const close = closestPaths(reference.path, files.filter(looksLikeSpec));
    return finding(
      "error",
      "spec-missing",
      reference.where,
      `The OpenAPI file ${reference.path} does not exist, so every page generated from it is blank or missing`,
      close.length > 0
        ? `Point ${reference.where.key ?? "the reference"} at the right file (did you mean ${close.map((path) => `"${path}"`).join(", ")}?), or add the file at ${reference.path}.`
        : `Add the OpenAPI 3.x file at ${reference.path}, or point ${reference.where.key ?? "the reference"} at the file that exists.`,
    );
  }
}

/** `./specs/openapi.yaml` and `/specs/openapi.yaml` name the same file as `specs/openapi.yaml`. */
export function normalizeSpecPath(path: string): string {
  return path.trim().replace(/^\.?\/+/, "");
}

function baseName(path: string): string {
  return path.split("/").pop() ?? path;
}

function stem(path: string): string {
  return baseName(path).replace(/\.(ya?ml|json)$/i, "");
}

function looksLikeSpec(path: string): boolean {
  return /\.(ya?ml|json)$/i.test(path) && !/(^|\/)layout\.json$/i.test(path);
}
