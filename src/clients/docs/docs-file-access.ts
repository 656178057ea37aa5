import type { RequestOptions } from "../request-options.js";
import type { DocsFile, DocsManifest, DocsPullResult, DocsPushResult } from "./docs-types.js";

/** The file operations the edit and site-check flows need; `DocsClient` provides them. */
export interface DocsFileAccess {
  getManifest(documentationId: string, options?: RequestOptions): Promise<DocsManifest>;
  pullFiles(
    documentationId: string,
    paths: readonly string[],
    options?: RequestOptions,
  ): Promise<DocsPullResult>;
  pushFiles(
    documentationId: string,
    files: readonly DocsFile[],
    message: string,
    options?: RequestOptions,
  ): Promise<DocsPushResult>;
}
