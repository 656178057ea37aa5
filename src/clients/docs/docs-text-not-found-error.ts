import { SwitchyardError } from "../../errors/switchyard-error.js";

const shownLength = 80;

/** A find-and-replace edit whose `find` text does not occur in the file. Nothing was pushed. */
export class DocsTextNotFoundError extends SwitchyardError {
  override readonly name: string = "DocsTextNotFoundError";
  readonly path: string;
  readonly find: string;

  constructor(path: string, find: string) {
    const shown = find.length > shownLength ? `${find.slice(0, shownLength)}…` : find;
    super(
      `The text to find was not found in ${path}: ${JSON.stringify(shown)}. Matching is exact and case-sensitive; pull the file to see its current content. Nothing was pushed.`,
    );
    this.path = path;
    this.find = find;
  }
}
