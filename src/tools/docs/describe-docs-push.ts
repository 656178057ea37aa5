import type { DocsFile } from "../../clients/docs/docs-types.js";
import { describeThrownBriefly } from "../describe-thrown-briefly.js";
import type { ActionDetail, ToolContext } from "../tool.js";
import { maximumPulledFiles } from "./docs-tool-schemas.js";
import type { DocsToolsClient } from "./docs-tools-client.js";
import { unifiedDiff } from "./unified-diff.js";

/** A live page as the push will find it. */
interface LivePage {
  title: string | undefined;
  content: string;
}

/**
 * What pushing `files` changes on each page, for the person asked to
 * approve it: for a page that exists, a unified diff against its live
 * content (and its title, when that changes); for a new page, its whole
 * content. When the live pages cannot be read, each file's whole new content
 * is shown and the reason is said.
 */
export async function describeDocsPush(
  client: Pick<DocsToolsClient, "getManifest" | "pullFiles">,
  documentationId: string,
  files: readonly DocsFile[],
  context: ToolContext,
): Promise<ActionDetail[]> {
  let live: Map<string, LivePage> | undefined;
  const details: ActionDetail[] = [];
  try {
    live = await readLivePages(client, documentationId, files, context);
  } catch (error) {
    if (context.signal.aborted) throw error;
    context.logger.warn(
      { error: describeThrownBriefly(error) },
      "could not read the live pages to describe the push",
    );
    details.push({
      label: "the live pages could not be read, so each file's whole new content is shown",
      value: describeThrownBriefly(error),
    });
  }
  for (const file of files) {
    const page = live?.get(file.path);
    if (!live) {
      details.push({ label: "page", value: file.path }, { label: "title", value: file.title });
      details.push({ label: "whole new content", text: file.content });
    } else if (!page) {
      details.push({ label: "new page", value: file.path }, { label: "title", value: file.title });
      details.push({ label: "content of the new page", text: file.content });
    } else {
      details.push({ label: "page", value: file.path });
      if (page.title !== undefined && page.title !== file.title) {
        details.push(
          { label: "title now", value: page.title },
          { label: "new title", value: file.title },
        );
      }
      details.push(...(await describeChange(page.content, file.content)));
    }
  }
  return details;
}

/** The change from `before` to `after` as approval details: a diff, or the whole new text. */
export async function describeChange(before: string, after: string): Promise<ActionDetail[]> {
  const diff = await unifiedDiff(before, after);
  if (diff === "") return [{ label: "content unchanged" }];
  if (diff === undefined) {
    return [
      { label: "whole new content (too different from the live page to compare)", text: after },
    ];
  }
  return [{ label: "changes to the live page (unified diff: - removed, + added)", text: diff }];
}

// The manifest says which pages exist; those are pulled, at most `maximumPulledFiles` per call.
async function readLivePages(
  client: Pick<DocsToolsClient, "getManifest" | "pullFiles">,
  documentationId: string,
  files: readonly DocsFile[],
  context: ToolContext,
): Promise<Map<string, LivePage>> {
  const manifest = await client.getManifest(documentationId, { signal: context.signal });
  const existing = new Set(manifest.files.map((entry) => entry.path));
  const paths = files.map((file) => file.path).filter((path) => existing.has(path));
  const live = new Map<string, LivePage>();
  for (let start = 0; start < paths.length; start += maximumPulledFiles) {
    const chunk = paths.slice(start, start + maximumPulledFiles);
    const pulled = await client.pullFiles(documentationId, chunk, { signal: context.signal });
    for (const file of pulled.files) {
      if (chunk.includes(file.path)) {
        live.set(file.path, { title: file.title, content: file.content });
      }
    }
    for (const path of chunk) {
      if (!live.has(path)) {
        throw new Error(
          `the service listed ${JSON.stringify(path)} but did not return it when pulled`,
        );
      }
    }
  }
  return live;
}
