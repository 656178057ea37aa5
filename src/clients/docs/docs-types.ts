/**
 * Answers of the documentation CLI service (docs/contract.md §3), as
 * `DocsClient` returns them. The seed shows few fields; every other field the
 * service sends is kept as it comes.
 */

/** The user tied to the bearer token (`GET /auth/user`). */
export interface DocsUser {
  id?: string;
  email?: string;
  name?: string;
  [field: string]: unknown;
}

/** A documentation project. */
export interface Documentation {
  documentationId: string;
  name?: string;
  [field: string]: unknown;
}

/** One file entry of a project's manifest. */
export interface DocsManifestEntry {
  /** Repository path, e.g. `guides/quickstart.mdx`. */
  path: string;
  title?: string;
  [field: string]: unknown;
}

/** The list of a project's files, without their content. */
export interface DocsManifest {
  files: DocsManifestEntry[];
  [field: string]: unknown;
}

/** A file with its content, as pulled and as pushed. */
export interface DocsFile {
  path: string;
  title: string;
  content: string;
  [field: string]: unknown;
}

/** A pulled file; `title` is absent only when the service sent none. */
export interface DocsPulledFile {
  path: string;
  title?: string;
  content: string;
  [field: string]: unknown;
}

/** The service's answer to a pull. */
export interface DocsPullResult {
  files: DocsPulledFile[];
  [field: string]: unknown;
}

/** How the service took one pushed file, e.g. `{ path, status: "updated" }`. */
export interface DocsPushedFile {
  path: string;
  status?: string;
  [field: string]: unknown;
}

/** The service's answer to a push (`files` is empty when it sent none). */
export interface DocsPushResult {
  files: DocsPushedFile[];
  message?: string;
  [field: string]: unknown;
}
