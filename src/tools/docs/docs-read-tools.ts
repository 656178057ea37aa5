import type { Documentation } from "../../clients/docs/docs-types.js";
import { defineTool } from "../define-tool.js";
import { scrubResult } from "../scrub-result.js";
import type { NeedsApproval, Tool } from "../tool.js";
import { trimList } from "../trim-list.js";
import type { DocsToolArguments } from "./docs-tool-names.js";
import {
  docsToolSchemas,
  maximumPulledContentLength,
  maximumPulledFiles,
  trimmedContentMarker,
} from "./docs-tool-schemas.js";
import type { DocsToolsClient } from "./docs-tools-client.js";

/** Most manifest entries one get_docs_manifest result shows. */
export const maximumManifestEntries = 500;

/** Result of list_documentations. */
export interface ListDocumentationsResult {
  documentations: Documentation[];
}

/** Result of get_docs_manifest. */
export interface DocsManifestResult {
  files: Array<{ path: string; title?: string }>;
  /** Files in the project. */
  count: number;
  /** Files left out of `files`, present when some were. */
  omitted?: number;
}

/** One pulled file; `content` is cut past 20,000 characters. */
export interface PulledFileView {
  path: string;
  title: string;
  content: string;
  /** Present and true when `content` was cut. */
  truncated?: true;
  /** The full length of the content, present when it was cut. */
  content_length?: number;
}

/** Result of pull_docs_files. */
export interface PullDocsFilesResult {
  files: PulledFileView[];
  /** Paths asked for that the service returned no file for. */
  missing?: string[];
  /** Present when a file was cut. */
  note?: string;
}

/** list_documentations: the projects the token can see. */
export function listDocumentationsTool(
  client: DocsToolsClient,
  needsApproval: NeedsApproval<DocsToolArguments["list_documentations"]>,
): Tool<DocsToolArguments["list_documentations"], ListDocumentationsResult> {
  return defineTool({
    name: "list_documentations",
    description:
      "Lists the documentation projects you can access. Returns {documentations: [{documentationId, name, ...}]}. Use it first to find a project's documentationId by its name. Read-only; takes no arguments.",
    parameters: docsToolSchemas().listDocumentationsParameters,
    needsApproval,
    readOnly: true,
    execute: async (_args, { signal }) =>
      scrubResult({ documentations: await client.listDocumentations({ signal }) }),
  });
}

/** get_docs_manifest: a project's file list, without content. */
export function getDocsManifestTool(
  client: DocsToolsClient,
  needsApproval: NeedsApproval<DocsToolArguments["get_docs_manifest"]>,
): Tool<DocsToolArguments["get_docs_manifest"], DocsManifestResult> {
  return defineTool({
    name: "get_docs_manifest",
    description: `Lists the files of a documentation project (paths and titles, no content). Returns {files: [{path, title?}], count}; at most ${maximumManifestEntries} files are shown, with omitted saying how many more exist. Use it to find the exact path of a page before pulling or editing it. Read-only.`,
    parameters: docsToolSchemas().getDocsManifestParameters,
    needsApproval,
    readOnly: true,
    execute: async ({ documentation_id }, { signal }) => {
      const manifest = await client.getManifest(documentation_id, { signal });
      const { shown, omitted } = trimList(manifest.files, maximumManifestEntries);
      const result: DocsManifestResult = {
        files: shown.map((file) => ({
          path: file.path,
          ...(typeof file.title === "string" ? { title: file.title } : {}),
        })),
        count: manifest.files.length,
        ...(omitted > 0 ? { omitted } : {}),
      };
      return scrubResult(result);
    },
  });
}

/** pull_docs_files: the content of some files, long content cut. */
export function pullDocsFilesTool(
  client: DocsToolsClient,
  needsApproval: NeedsApproval<DocsToolArguments["pull_docs_files"]>,
): Tool<DocsToolArguments["pull_docs_files"], PullDocsFilesResult> {
  return defineTool({
    name: "pull_docs_files",
    description: `Reads the content of files of a documentation project (1 to ${maximumPulledFiles} paths per call, as get_docs_manifest lists them). Returns {files: [{path, title, content}]}. Content longer than ${maximumPulledContentLength} characters is cut, marked truncated with its full content_length: never push cut content back (push_docs_files refuses it); change long pages with edit_docs_file. Read-only.`,
    parameters: docsToolSchemas().pullDocsFilesParameters,
    needsApproval,
    readOnly: true,
    execute: async ({ documentation_id, paths }, { signal }) => {
      const pulled = await client.pullFiles(documentation_id, paths, { signal });
      const files = pulled.files.map((file): PulledFileView => {
        const title = typeof file.title === "string" ? file.title : "";
        if (file.content.length <= maximumPulledContentLength) {
          return { path: file.path, title, content: file.content };
        }
        return {
          path: file.path,
          title,
          content: `${file.content.slice(0, maximumPulledContentLength)}\n${trimmedContentMarker} showing ${maximumPulledContentLength} of ${file.content.length} characters]`,
          truncated: true,
          content_length: file.content.length,
        };
      });
      const returned = new Set(files.map((file) => file.path));
      const missing = paths.filter((path) => !returned.has(path));
      const result: PullDocsFilesResult = {
        files,
        ...(missing.length > 0 ? { missing } : {}),
        ...(files.some((file) => file.truncated)
          ? {
              note: `Files marked truncated show only their first ${maximumPulledContentLength} characters. Do not push them back; use edit_docs_file to change them.`,
            }
          : {}),
      };
      return scrubResult(result);
    },
  });
}
