import type { AgentStream } from "../agent/agent-stream.js";
import type { RunResult } from "../agent/run-result.js";
import type { ProgressRenderer } from "./render-progress.js";

/** How a followed run ended, with what the report needs besides the result. */
export interface FollowedRun {
  result: RunResult;
  durationMs: number;
  /** How long each approval asked during this run waited, by tool call id. */
  approvalWaits: Map<string, number>;
}

/** Shows a run's events as progress while it goes, and resolves when it ends. */
export async function followRun(
  stream: AgentStream,
  progress: ProgressRenderer,
): Promise<FollowedRun> {
  const startedAt = performance.now();
  const approvalWaits = new Map<string, number>();
  const approvalStarts = new Map<string, number>();
  for await (const event of stream) {
    if (event.type === "approval-request") approvalStarts.set(event.toolCallId, performance.now());
    if (event.type === "approval-result") {
      const asked = approvalStarts.get(event.toolCallId);
      if (asked !== undefined) approvalWaits.set(event.toolCallId, performance.now() - asked);
    }
    progress.handle(event);
  }
  const result = await stream.result;
  progress.close();
  return { result, durationMs: performance.now() - startedAt, approvalWaits };
}
