import type { AnyTool } from "../tool.js";
import {
  checkToolSetClient,
  clientTarget,
  finishToolSet,
  type ToolSetOptions,
  toolSetApprovalRules,
  withClientSecrets,
} from "../tool-set-options.js";
import {
  getDocsManifestTool,
  listDocumentationsTool,
  pullDocsFilesTool,
} from "./docs-read-tools.js";
import {
  type DocsToolArguments,
  type DocsToolName,
  defaultDocsToolApprovals,
} from "./docs-tool-names.js";
import { type DocsToolsClient, docsToolsClientMethods } from "./docs-tools-client.js";
import { editDocsFileTool, pushDocsFilesTool } from "./docs-write-tools.js";
import { checkSiteConfigTool } from "./site-check-tool.js";

/** Options of `docsTools`. */
export type DocsToolsOptions = ToolSetOptions<DocsToolArguments>;

/**
 * The documentation-hosting tools, over one `DocsClient`:
 * list_documentations, get_docs_manifest, pull_docs_files, push_docs_files,
 * edit_docs_file and check_site_config.
 *
 * push_docs_files and edit_docs_file overwrite live pages and need a human's
 * approval (`defaultDocsToolApprovals`); `options.needsApproval` changes that per tool.
 *
 * @throws ConfigurationError when the client lacks a method or an option is wrong.
 *
 * @example
 * const tools = docsTools(new DocsClient({ baseUrl: "https://docs.example.com/cli/v1", token }));
 */
export function docsTools(
  docsClient: DocsToolsClient,
  options?: DocsToolsOptions,
): AnyTool<DocsToolName>[] {
  checkToolSetClient(
    "docsTools",
    docsClient,
    docsToolsClientMethods,
    "a DocsClient, e.g. new DocsClient({ baseUrl, token })",
  );
  const rules = toolSetApprovalRules<DocsToolArguments>(
    "docsTools",
    defaultDocsToolApprovals,
    options,
  );
  const tools = [
    listDocumentationsTool(docsClient, defaultDocsToolApprovals.list_documentations),
    getDocsManifestTool(docsClient, defaultDocsToolApprovals.get_docs_manifest),
    pullDocsFilesTool(docsClient, defaultDocsToolApprovals.pull_docs_files),
    pushDocsFilesTool(docsClient, defaultDocsToolApprovals.push_docs_files),
    editDocsFileTool(docsClient, defaultDocsToolApprovals.edit_docs_file),
    checkSiteConfigTool(docsClient, defaultDocsToolApprovals.check_site_config),
  ];
  return withClientSecrets(
    docsClient,
    finishToolSet(tools, rules, clientTarget("docs", docsClient)),
  );
}
