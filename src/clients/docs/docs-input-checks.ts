import { ConfigurationError } from "../../errors/configuration-error.js";
import type { DocsFile } from "./docs-types.js";

/**
 * Checks of caller input, run before anything is sent. Each names the bad
 * argument and how to fix it; a list reports every bad item at once.
 */

/** A project id as the service returned it. */
export function checkDocumentationId(documentationId: unknown): string {
  if (typeof documentationId === "number" && Number.isSafeInteger(documentationId)) {
    return String(documentationId);
  }
  if (typeof documentationId !== "string" || documentationId.trim() === "") {
    throw new ConfigurationError(
      `documentationId must be a non-empty string: pass the documentationId listDocumentations() returns (got ${describe(documentationId)})`,
    );
  }
  if (documentationId === "." || documentationId === "..") {
    throw new ConfigurationError(
      `documentationId "${documentationId}" is not a valid id: pass the documentationId listDocumentations() returns`,
    );
  }
  return documentationId;
}

/** A new project's name. */
export function checkDocumentationName(name: unknown): string {
  if (typeof name !== "string" || name.trim() === "") {
    throw new ConfigurationError(
      `name must be a non-empty string, e.g. "Public API docs" (got ${describe(name)})`,
    );
  }
  return name;
}

/** The paths to pull: a non-empty array of non-empty strings. */
export function checkPaths(paths: unknown): string[] {
  if (!Array.isArray(paths) || paths.length === 0) {
    throw new ConfigurationError(
      `paths must be a non-empty array of file paths, e.g. ["guides/quickstart.mdx"] (got ${describe(paths)})`,
    );
  }
  const problems: string[] = [];
  paths.forEach((path: unknown, index) => {
    if (typeof path !== "string" || path.trim() === "") {
      problems.push(
        `paths[${index}] must be a non-empty string such as "guides/quickstart.mdx" (got ${describe(path)})`,
      );
    }
  });
  if (problems.length > 0) throw new ConfigurationError(problems);
  return paths as string[];
}

/**
 * The files of one push. A push is one change with one message, so a bad
 * file stops the whole push (nothing is sent) and every bad file is named.
 */
export function checkPushFiles(files: unknown): DocsFile[] {
  if (!Array.isArray(files) || files.length === 0) {
    throw new ConfigurationError(
      `files must be a non-empty array of {path, title, content} (got ${describe(files)})`,
    );
  }
  const problems: string[] = [];
  const seen = new Map<string, number>();
  files.forEach((file: unknown, index) => {
    if (typeof file !== "object" || file === null || Array.isArray(file)) {
      problems.push(
        `files[${index}] must be an object {path, title, content} (got ${describe(file)})`,
      );
      return;
    }
    const { path, title, content } = file as Record<string, unknown>;
    const name = typeof path === "string" && path !== "" ? ` (${path})` : "";
    if (typeof path !== "string" || path.trim() === "") {
      problems.push(`files[${index}].path must be a non-empty string (got ${describe(path)})`);
    } else if (seen.has(path)) {
      problems.push(
        `files[${index}].path "${path}" is also files[${seen.get(path)}]: push each path once`,
      );
    } else {
      seen.set(path, index);
    }
    if (typeof title !== "string") {
      problems.push(
        `files[${index}].title${name} must be a string (got ${describe(title)}): pass the title the pull returned`,
      );
    }
    if (typeof content !== "string") {
      problems.push(`files[${index}].content${name} must be a string (got ${describe(content)})`);
    }
  });
  if (problems.length > 0) throw new ConfigurationError(problems);
  return files as DocsFile[];
}

/** The change message of a push. */
export function checkMessage(message: unknown): string {
  if (typeof message !== "string" || message.trim() === "") {
    throw new ConfigurationError(
      `message must be a non-empty string describing the change, e.g. "Fix the quickstart link" (got ${describe(message)})`,
    );
  }
  return message;
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array";
  if (typeof value === "string") return value.trim() === "" ? "an empty string" : "a string";
  return `a ${typeof value}`;
}
