import type { output } from "zod";
import type { DocsToolSchemas } from "./docs-tool-schemas.js";

/** Names of the tools `docsTools` builds, in the order it returns them. */
export const docsToolNames = [
  "list_documentations",
  "get_docs_manifest",
  "pull_docs_files",
  "push_docs_files",
  "edit_docs_file",
  "check_site_config",
] as const;

/** One docs tool's name, e.g. `edit_docs_file`. */
export type DocsToolName = (typeof docsToolNames)[number];

/** The parsed arguments each docs tool runs with (what a `needsApproval` function receives). */
export interface DocsToolArguments {
  list_documentations: output<DocsToolSchemas["listDocumentationsParameters"]>;
  get_docs_manifest: output<DocsToolSchemas["getDocsManifestParameters"]>;
  pull_docs_files: output<DocsToolSchemas["pullDocsFilesParameters"]>;
  push_docs_files: output<DocsToolSchemas["pushDocsFilesParameters"]>;
  edit_docs_file: output<DocsToolSchemas["editDocsFileParameters"]>;
  check_site_config: output<DocsToolSchemas["checkSiteConfigParameters"]>;
}

/**
 * Which docs tools need a human's approval unless `needsApproval` says
 * otherwise: the two that overwrite live pages.
 */
export const defaultDocsToolApprovals: Readonly<Record<DocsToolName, boolean>> = Object.freeze({
  list_documentations: false,
  get_docs_manifest: false,
  pull_docs_files: false,
  push_docs_files: true,
  edit_docs_file: true,
  check_site_config: false,
});
