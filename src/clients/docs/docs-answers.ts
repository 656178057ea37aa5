import type {
  DocsManifest,
  DocsManifestEntry,
  DocsPulledFile,
  DocsPullResult,
  DocsPushedFile,
  DocsPushResult,
  DocsUser,
  Documentation,
} from "./docs-types.js";

/**
 * Readers of the service's answers: tolerant of missing optional fields,
 * ids sent as numbers and extra fields (kept), strict about what an
 * operation cannot do without. Problems are collected, not thrown.
 */

/**
 * `GET /auth/user`: any object; a numeric id becomes a string, and `id`,
 * `email` or `name` of another type are left out of the known fields.
 */
export function readUser(value: unknown, problems: string[]): DocsUser {
  if (!isObject(value)) {
    problems.push(`the body is ${describe(value)}, expected the user object`);
    return {};
  }
  const user: DocsUser = { ...value };
  const id = readId(value.id);
  if (id === undefined) delete user.id;
  else user.id = id;
  if (typeof value.email !== "string") delete user.email;
  if (typeof value.name !== "string") delete user.name;
  return user;
}

/** `GET /documentations`: `{documentations: [...]}` or a bare array. */
export function readDocumentationList(value: unknown, problems: string[]): Documentation[] {
  const items = Array.isArray(value)
    ? value
    : isObject(value) && Array.isArray(value.documentations)
      ? value.documentations
      : undefined;
  if (!items) {
    problems.push(
      `the body is ${describe(value)}, expected {"documentations": [...]} or an array of projects`,
    );
    return [];
  }
  const list: Documentation[] = [];
  items.forEach((item: unknown, index) => {
    const documentation = readDocumentation(item, problems, `documentations[${index}]`);
    if (documentation) list.push(documentation);
  });
  return list;
}

/** One project; `documentationId` (or `id`) is required. */
export function readDocumentation(
  value: unknown,
  problems: string[],
  label = "the body",
): Documentation | undefined {
  if (!isObject(value)) {
    problems.push(`${label} is ${describe(value)}, expected a project object`);
    return undefined;
  }
  const documentationId = readId(value.documentationId) ?? readId(value.id);
  if (documentationId === undefined) {
    problems.push(`${label}.documentationId is ${describe(value.documentationId)}, expected an id`);
    return undefined;
  }
  return { ...value, documentationId };
}

/**
 * A manifest: `{files: [...]}` or a bare array. Entries without a string
 * `path` cannot be pulled or pushed; they are left out and named in `skipped`.
 */
export function readManifest(value: unknown, problems: string[], skipped: string[]): DocsManifest {
  const envelope = isObject(value) ? value : {};
  const entries = Array.isArray(value) ? value : envelope.files;
  if (!Array.isArray(entries)) {
    problems.push(`the body is ${describe(value)}, expected {"files": [{"path": ...}, ...]}`);
    return { files: [] };
  }
  const files: DocsManifestEntry[] = [];
  entries.forEach((entry: unknown, index) => {
    if (isObject(entry) && typeof entry.path === "string" && entry.path !== "") {
      files.push({ ...entry, path: entry.path });
    } else {
      skipped.push(`files[${index}] has no path`);
    }
  });
  return { ...envelope, files };
}

/** A pull answer: every file needs a string `path` and `content`. */
export function readPullResult(value: unknown, problems: string[]): DocsPullResult {
  const envelope = isObject(value) ? value : {};
  const entries = Array.isArray(value) ? value : envelope.files;
  if (!Array.isArray(entries)) {
    problems.push(
      `the body is ${describe(value)}, expected {"files": [{"path", "title", "content"}, ...]}`,
    );
    return { files: [] };
  }
  const files: DocsPulledFile[] = [];
  entries.forEach((entry: unknown, index) => {
    if (!isObject(entry)) {
      problems.push(`files[${index}] is ${describe(entry)}, expected a file object`);
      return;
    }
    if (typeof entry.path !== "string" || typeof entry.content !== "string") {
      problems.push(
        `files[${index}] needs a string path and content (path is ${describe(entry.path)}, content is ${describe(entry.content)})`,
      );
      return;
    }
    const file: DocsPulledFile = { ...entry, path: entry.path, content: entry.content };
    if (typeof entry.title !== "string") delete file.title;
    files.push(file);
  });
  return { ...envelope, files };
}

/** A push answer; an empty body or a missing `files` reads as no per-file statuses. */
export function readPushResult(value: unknown, problems: string[]): DocsPushResult {
  if (value === undefined || value === null) return { files: [] };
  if (!isObject(value)) {
    problems.push(`the body is ${describe(value)}, expected {"files": [...], "message": ...}`);
    return { files: [] };
  }
  const files: DocsPushedFile[] = [];
  if (Array.isArray(value.files)) {
    for (const entry of value.files as unknown[]) {
      if (!isObject(entry) || typeof entry.path !== "string") continue;
      const file: DocsPushedFile = { ...entry, path: entry.path };
      if (typeof entry.status !== "string") delete file.status;
      files.push(file);
    }
  }
  const result: DocsPushResult = { ...value, files };
  if (typeof value.message !== "string") delete result.message;
  return result;
}

function readId(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim() !== "") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return value.trim() === "" ? "an empty string" : "a string";
  return `a ${typeof value}`;
}
