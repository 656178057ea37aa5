import { SwitchyardError } from "../../errors/switchyard-error.js";

/**
 * The path to edit is not in the project's manifest. The message names up
 * to three close paths the caller may have meant.
 */
export class DocsPathNotFoundError extends SwitchyardError {
  override readonly name: string = "DocsPathNotFoundError";
  readonly documentationId: string;
  readonly path: string;
  /** The closest manifest paths, best first (possibly empty). */
  readonly suggestions: readonly string[];

  constructor(details: {
    documentationId: string;
    path: string;
    suggestions: readonly string[];
    fileCount: number;
  }) {
    const hint =
      details.suggestions.length > 0
        ? `Did you mean ${details.suggestions.map((path) => `"${path}"`).join(", ")}?`
        : "No path there is similar; call getManifest() to list them.";
    super(
      `"${details.path}" is not in the manifest of documentation ${details.documentationId} (${details.fileCount} files). ${hint}`,
    );
    this.documentationId = details.documentationId;
    this.path = details.path;
    this.suggestions = [...details.suggestions];
  }
}
