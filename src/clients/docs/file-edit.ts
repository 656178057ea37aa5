import { ConfigurationError } from "../../errors/configuration-error.js";
import { DocsTextNotFoundError } from "./docs-text-not-found-error.js";
import type { DocsPulledFile } from "./docs-types.js";

/** Replace `find` (exact, case-sensitive) with `replace`: the first occurrence, or every one with `all`. */
export interface FindReplaceEdit {
  find: string;
  replace: string;
  /** @default false */
  all?: boolean;
}

/** A function from the current content to the new one. */
export type ContentEdit = (content: string, file: DocsPulledFile) => string | Promise<string>;

/** How `editFile` changes a file. */
export type FileEdit = ContentEdit | FindReplaceEdit;

/** Checks the shape of an edit before anything is read or sent. */
export function checkFileEdit(edit: unknown): FileEdit {
  if (typeof edit === "function") return edit as ContentEdit;
  if (typeof edit !== "object" || edit === null || Array.isArray(edit)) {
    throw new ConfigurationError(
      "edit must be a function (content, file) => newContent or { find, replace, all? }",
    );
  }
  const { find, replace, all } = edit as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof find !== "string" || find === "") {
    problems.push("edit.find must be the non-empty text to replace");
  }
  if (typeof replace !== "string") problems.push('edit.replace must be a string ("" deletes)');
  if (all !== undefined && typeof all !== "boolean") {
    problems.push("edit.all must be true (replace every occurrence) or false (the first)");
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return edit as FindReplaceEdit;
}

/** The file's new content after `edit`. */
export async function applyFileEdit(edit: FileEdit, file: DocsPulledFile): Promise<string> {
  if (typeof edit === "function") {
    const result = await edit(file.content, file);
    if (typeof result !== "string") {
      throw new ConfigurationError(
        `the edit function for ${file.path} returned ${result === null ? "null" : typeof result}: it must return the new content as a string`,
      );
    }
    return result;
  }
  const first = file.content.indexOf(edit.find);
  if (first < 0) throw new DocsTextNotFoundError(file.path, edit.find);
  // split/join and slicing keep `$&`-style patterns in `replace` literal.
  if (edit.all === true) return file.content.split(edit.find).join(edit.replace);
  return file.content.slice(0, first) + edit.replace + file.content.slice(first + edit.find.length);
}
