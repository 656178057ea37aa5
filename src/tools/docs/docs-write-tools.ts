import type { EditFileResult } from "../../clients/docs/edit-file.js";
import { defineTool } from "../define-tool.js";
import { describeThrownBriefly } from "../describe-thrown-briefly.js";
import { scrubResult } from "../scrub-result.js";
import type { ActionDetail, NeedsApproval, Tool, ToolContext } from "../tool.js";
import { describeChange, describeDocsPush } from "./describe-docs-push.js";
import { describeProject } from "./describe-project.js";
import type { DocsToolArguments } from "./docs-tool-names.js";
import { docsToolSchemas, maximumPushedFiles } from "./docs-tool-schemas.js";
import type { DocsToolsClient } from "./docs-tools-client.js";

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
    parameters: docsToolSchemas().pushDocsFilesParameters,
    needsApproval,
    destructive: true,
    idempotent: true,
    describeAction: async ({ documentation_id, files, message }, context) => {
      const count = files.length === 1 ? "1 file" : `${files.length} files`;
      return {
        summary: `Push ${count} to the docs project below: this overwrites the live ${files.length === 1 ? "page" : "pages"} with the content shown`,
        details: [
          ...(await describeProject(client, documentation_id, context)),
          ...(await describeDocsPush(client, documentation_id, files, context)),
          { label: "change message", value: message, writtenByAgent: true },
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
    parameters: docsToolSchemas().editDocsFileParameters,
    needsApproval,
    destructive: true,
    describeAction: async ({ documentation_id, path, find, replace, message }, context) => ({
      summary:
        "Edit one page of the docs project below and push it: the first occurrence of the text to find is replaced, and the live page is overwritten",
      details: [
        ...(await describeProject(client, documentation_id, context)),
        { label: "page", value: path },
        { label: "text to find (exact, first occurrence)", text: find },
        { label: "replaced with (whole)", text: replace },
        ...(await previewEdit(client, documentation_id, path, { find, replace }, context)),
        { label: "change message", value: message, writtenByAgent: true },
      ],
      irreversible: true,
    }),
    execute: async ({ documentation_id, path, find, replace, message }, { signal }) =>
      scrubResult(
        await client.editFile(documentation_id, path, { find, replace }, message, { signal }),
      ),
  });
}

// The edit applied to the live page as it is now, when it can be read; the
// page may still change before the call runs, which the edit then acts on.
async function previewEdit(
  client: DocsToolsClient,
  documentationId: string,
  path: string,
  edit: { find: string; replace: string },
  context: ToolContext,
): Promise<ActionDetail[]> {
  let content: string | undefined;
  try {
    const pulled = await client.pullFiles(documentationId, [path], { signal: context.signal });
    content = pulled.files.find((file) => file.path === path)?.content;
  } catch (error) {
    if (context.signal.aborted) throw error;
    context.logger.warn(
      { error: describeThrownBriefly(error) },
      "could not pull the page to preview the edit",
    );
  }
  if (content === undefined)
    return [{ label: "the live page could not be read to preview the change" }];
  const first = content.indexOf(edit.find);
  if (first < 0) {
    return [
      {
        label:
          "the text to find is not in the live page now: the edit would fail and change nothing",
      },
    ];
  }
  const edited = content.slice(0, first) + edit.replace + content.slice(first + edit.find.length);
  return describeChange(content, edited);
}
