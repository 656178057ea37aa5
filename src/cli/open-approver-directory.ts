import {
  type ApproverDirectory,
  loadApproverDirectory,
} from "../agent/approval/approver-directory.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import type { CliIo } from "./cli-io.js";
import { usageError } from "./command-error.js";

/** The environment variable naming the approver directory file, when `--approver-directory` is not given. */
export const approverDirectoryVariable = "SWITCHYARD_APPROVER_DIRECTORY";

/**
 * The approver directory a runner was given: a directory as it is, else the
 * file it names or `SWITCHYARD_APPROVER_DIRECTORY` names
 * ({@link openApproverDirectory}).
 */
export async function givenApproverDirectory(
  given: ApproverDirectory | string | undefined,
  env: CliIo["env"],
): Promise<ApproverDirectory | undefined> {
  return typeof given === "object" ? given : openApproverDirectory(given, env);
}

/**
 * The approver directory of a command: the JSON file `--approver-directory`
 * names, else the one `SWITCHYARD_APPROVER_DIRECTORY` names, else none (the
 * approver's answers count as they always did). A file that cannot be read
 * or holds a wrong entry is a usage error naming the file, the flag or
 * variable it came from, and every problem.
 */
export async function openApproverDirectory(
  flag: string | undefined,
  env: CliIo["env"],
): Promise<ApproverDirectory | undefined> {
  const fromEnvironment = env[approverDirectoryVariable]?.trim();
  const path = flag ?? (fromEnvironment || undefined);
  if (path === undefined) return undefined;
  const source = flag !== undefined ? "--approver-directory" : approverDirectoryVariable;
  try {
    return await loadApproverDirectory(path);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    throw usageError(`${source}: ${error.problems.join("\n")}`, { cause: error });
  }
}
