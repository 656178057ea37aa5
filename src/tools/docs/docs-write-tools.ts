import type { EditFileResult } from "../../clients/docs/edit-file.js";
import { defineTool } from "../define-tool.js";
import { scrubResult } from "../scrub-result.js";
import type { NeedsApproval, Tool } from "../tool.js";
import { describeProject } from "./describe-project.js";
import type { DocsToolArguments } from "./docs-tool-names.js";
import {
  editDocsFileParameters,
  maximumPushedFiles,
  pushDocsFilesParameters,
} from "./docs-tool-schemas.js";
import type { DocsToolsClient } from "./docs-tools-client.js";
import { quoteForPerson } from "./quote-for-person.js";

/** Result of push_docs_files. */
export interface PushDocsFilesResult {
  files: Array<{ path: string; status?: string }>;
  message: string;
}

/** Result of edit_docs_file. */
export type EditDocsFileResult = EditFileResult;

const refusalText =
  'If the result has error "approval_refused", nothing was changed: tell the user the reason and do not retry the same call unless they ask.';

/** push_docs_files: overwrites whole files; needs approval by default. */
export function pushDocsFilesTool(
  client: DocsToolsClient,
  needsApproval: NeedsApproval<DocsToolArguments["push_docs_files"]>,
): Tool<DocsToolArguments["push_docs_files"], PushDocsFilesResult> {
  return defineTool({
    name: "push_docs_files",
    description: `Writes whole files to a documentation project with a change message: each file {path, title, content} replaces the live page at once (1 to ${maximumPushedFiles} files, each path once). The previous content is overwritten, so a human is asked to approve the call first. To change a few words of one page, prefer edit_docs_file. Returns {files: [{path, status}], message}. ${refusalText}`,
    parameters: pushDocsFilesParameters,
    needsApproval,
    describeAction: async ({ documentation_id, files, message }, context) => {
      const project = await describeProject(client, documentation_id, context);
      const count = files.length === 1 ? "1 file" : `${files.length} files`;
      return {
        summary: `Push ${count} to ${project}: this overwrites the live ${files.length === 1 ? "page" : "pages"} with new content`,
        details: [
          ...files.map(
            (file) =>
              `${file.path} (title ${quoteForPerson(file.title)}, ${file.content.length} characters)`,
          ),
          `change message: ${quoteForPerson(message)}`,
        ],
        irreversible: true,
      };
    },
    execute: async ({ documentation_id, files, message }, { signal }) => {
      const pushed = await client.pushFiles(documentation_id, files, message, { signal });
      const result: PushDocsFilesResult = {
        files: pushed.files.map((file) => ({
          path: file.path,
          ...(typeof file.status === "string" ? { status: file.status } : {}),
        })),
        message: typeof pushed.message === "string" ? pushed.message : message,
      };
      return scrubResult(result);
    },
  });
}

/** edit_docs_file: find and replace in one page, then push it; needs approval by default. */
export function editDocsFileTool(
  client: DocsToolsClient,
  needsApproval: NeedsApproval<DocsToolArguments["edit_docs_file"]>,
): Tool<DocsToolArguments["edit_docs_file"], EditDocsFileResult> {
  return defineTool({
    name: "edit_docs_file",
    description: `Changes one page of a documentation project: replaces the first occurrence of find (exact, case-sensitive) with replace and pushes the page, overwriting the live page, so a human is asked to approve the call first. path is as get_docs_manifest lists it. Returns {path, changed, pushed, status?}; changed is false (and nothing is pushed) when the replacement leaves the page as it was. Fails without changing anything when the path is not in the project (the error names close paths) or find does not occur (pull the page to see its text). ${refusalText}`,
    parameters: editDocsFileParameters,
    needsApproval,
    describeAction: async ({ documentation_id, path, find, replace, message }, context) => {
      const project = await describeProject(client, documentation_id, context);
      return {
        summary: `Edit ${path} in ${project} and push it: this overwrites the live page`,
        details: [
          `${path}: ${quoteForPerson(find)} -> ${quoteForPerson(replace)} (first occurrence)`,
          `change message: ${quoteForPerson(message)}`,
        ],
        irreversible: true,
      };
    },
    execute: async ({ documentation_id, path, find, replace, message }, { signal }) =>
      scrubResult(
        await client.editFile(documentation_id, path, { find, replace }, message, { signal }),
      ),
  });
}
