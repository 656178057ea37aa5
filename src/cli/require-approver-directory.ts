import type { ApproverDirectory } from "../agent/approval/approver-directory.js";
import type { RunState } from "../agent/durable/run-state.js";
import { usageError } from "./command-error.js";
import { describeStartedBy } from "./describe-started-by.js";
import { approverDirectoryVariable } from "./open-approver-directory.js";

/**
 * Refuses to resume, without an approver directory, a run `switchyard run`
 * started with one (only then does it save who started the run): its
 * answers would count from whoever gave them, the person who started it
 * too. A usage error naming the flag and the variable.
 */
export function requireApproverDirectory(
  state: Pick<RunState, "runId" | "startedBy">,
  directory: ApproverDirectory | undefined,
  command: string,
): void {
  if (directory !== undefined || state.startedBy === undefined) return;
  throw usageError(
    `Run "${state.runId}" was started with an approver directory (started by ${describeStartedBy(state.startedBy)}), so only the people it allows may approve its actions: give ${command} the same directory, --approver-directory FILE (or set ${approverDirectoryVariable}).`,
  );
}
