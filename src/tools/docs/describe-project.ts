import { describeThrownBriefly } from "../describe-thrown-briefly.js";
import type { ToolContext } from "../tool.js";
import type { DocsToolsClient } from "./docs-tools-client.js";

/**
 * The project as a person recognises it: `"Storefront API" (doc_123)`, or
 * `documentation doc_123` when its name cannot be read.
 */
export async function describeProject(
  client: Pick<DocsToolsClient, "listDocumentations">,
  documentationId: string,
  context: ToolContext,
): Promise<string> {
  try {
    const projects = await client.listDocumentations({ signal: context.signal });
    const project = projects.find((candidate) => candidate.documentationId === documentationId);
    if (project && typeof project.name === "string" && project.name.trim() !== "") {
      return `docs project "${project.name}" (${documentationId})`;
    }
    return `docs project ${documentationId} (not among the projects this token can see)`;
  } catch (error) {
    if (context.signal.aborted) throw error;
    context.logger.warn(
      { error: describeThrownBriefly(error) },
      "could not list documentations to name the project",
    );
    return `docs project ${documentationId}`;
  }
}
