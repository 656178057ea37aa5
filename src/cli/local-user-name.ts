import { userInfo } from "node:os";
import { usageError } from "./command-error.js";

/**
 * The name of the user this process runs as (`os.userInfo().username`):
 * how the terminal channel recognises the person at it, who starts a run
 * of `switchyard run` and answers its questions there (their
 * `identities.terminal` in an approver directory). Read from the system,
 * never from an environment variable anyone could set. A user the system
 * has no name for is a usage error saying what to do.
 */
export function localUserName(): string {
  let name: string | undefined;
  try {
    name = userInfo().username;
  } catch {
    name = undefined;
  }
  if (name === undefined || name.trim() === "") {
    throw usageError(
      `This process runs as a user the system has no name for (uid ${process.getuid?.() ?? "unknown"}), so the terminal cannot say who you are: run as a named user, or leave the approver directory out.`,
    );
  }
  return name;
}
