import { describeThrownBriefly } from "../describe-thrown-briefly.js";
import type { ActionDetail, ToolContext } from "../tool.js";
import type { DocsToolsClient } from "./docs-tools-client.js";

/**
 * The project as a person recognises it, as approval details: its name as
 * the service gives it and its id (both shown as values, quoted), or the id
 * alone with why the name is missing.
 */
export async function describeProject(
  client: Pick<DocsToolsClient, "listDocumentations">,
  documentationId: string,
  context: ToolContext,
): Promise<ActionDetail[]> {
  const id: ActionDetail = { label: "docs project id", value: documentationId };
  try {
    const projects = await client.listDocumentations({ signal: context.signal });
    const project = projects.find((candidate) => candidate.documentationId === documentationId);
    if (project && typeof project.name === "string" && project.name.trim() !== "") {
      return [{ label: "docs project", value: project.name }, id];
    }
    return [{ ...id, label: "docs project id (not among the projects this token can see)" }];
  } catch (error) {
    if (context.signal.aborted) throw error;
    context.logger.warn(
      { error: describeThrownBriefly(error) },
      "could not list documentations to name the project",
    );
    return [id];
  }
}
