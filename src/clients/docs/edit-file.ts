import { SwitchyardError } from "../../errors/switchyard-error.js";
import type { Logger } from "../../internal/logger.js";
import type { RequestOptions } from "../request-options.js";
import { closestPaths } from "./closest-paths.js";
import type { DocsFileAccess } from "./docs-file-access.js";
import { DocsPathNotFoundError } from "./docs-path-not-found-error.js";
import type { DocsManifestEntry, DocsPulledFile } from "./docs-types.js";
import { applyFileEdit, type FileEdit } from "./file-edit.js";
import { parseFrontMatter } from "./front-matter.js";

/** What `editFile` did. */
export interface EditFileResult {
  /** The path as the manifest spells it. */
  path: string;
  /** Whether the edit changed the content. */
  changed: boolean;
  /** Whether a push was sent (only when the content changed). */
  pushed: boolean;
  /** The status the service gave the pushed file, when it gave one. */
  status?: string;
}

/**
 * The seed's single-file flow: read the manifest, locate `path`, pull it,
 * apply `edit`, and push the file only if its content changed. The caller
 * has checked `edit` and `message`.
 */
export async function editDocsFile(
  access: DocsFileAccess,
  logger: Logger,
  request: { documentationId: string; path: string; edit: FileEdit; message: string },
  options?: RequestOptions,
): Promise<EditFileResult> {
  const { documentationId, edit, message } = request;
  const manifest = await access.getManifest(documentationId, options);
  const entry = locate(manifest.files, request.path);
  if (!entry) {
    throw new DocsPathNotFoundError({
      documentationId,
      path: request.path,
      suggestions: closestPaths(
        request.path,
        manifest.files.map((file) => file.path),
      ),
      fileCount: manifest.files.length,
    });
  }
  const pulled = await access.pullFiles(documentationId, [entry.path], options);
  const file = pulled.files.find((candidate) => candidate.path === entry.path);
  if (!file) {
    throw new SwitchyardError(
      `Pulling ${entry.path} from documentation ${documentationId} returned no file with that path (got ${pulled.files.length} other files); nothing was pushed`,
    );
  }
  const content = await applyFileEdit(edit, file);
  if (content === file.content) {
    logger.info({ documentationId, path: entry.path }, "edit changed nothing; not pushing");
    return { path: entry.path, changed: false, pushed: false };
  }
  const pushed = await access.pushFiles(
    documentationId,
    [{ path: entry.path, title: titleOf(file, entry), content }],
    message,
    options,
  );
  const status = pushed.files.find((candidate) => candidate.path === entry.path)?.status;
  logger.info({ documentationId, path: entry.path, status }, "pushed edited file");
  return { path: entry.path, changed: true, pushed: true, ...(status ? { status } : {}) };
}

function locate(files: readonly DocsManifestEntry[], path: string): DocsManifestEntry | undefined {
  const exact = files.find((file) => file.path === path);
  if (exact) return exact;
  const wanted = normalize(path);
  return files.find((file) => normalize(file.path) === wanted);
}

function normalize(path: string): string {
  return path.trim().replace(/^\.?\/+/, "");
}

/** The push needs a title: the pulled one, else the manifest's, the front matter's, the file name. */
function titleOf(file: DocsPulledFile, entry: DocsManifestEntry): string {
  if (typeof file.title === "string") return file.title;
  if (typeof entry.title === "string") return entry.title;
  const title = parseFrontMatter(file.content).data.title;
  if (typeof title === "string") return title;
  return (
    file.path
      .split("/")
      .pop()
      ?.replace(/\.[A-Za-z0-9]+$/, "") ?? file.path
  );
}
