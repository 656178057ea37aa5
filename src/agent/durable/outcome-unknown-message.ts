/**
 * The tool message for a destructive call that had started when an earlier
 * process stopped, with no result recorded: it is not run again, and the
 * model is told how to find out whether it took effect. Same JSON shape as
 * the other tool messages: `{ error: "outcome_unknown", message, ... }`.
 */
export function outcomeUnknownMessage(
  toolName: string,
  readOnlyTools: readonly string[],
  startedAs?: { toolCallId: string; content?: string },
): string {
  const how =
    readOnlyTools.length > 0
      ? `use a tool that only reads (${readOnlyTools.join(", ")}) to look at the current state, for example list the records it would have changed and see whether they are already gone or changed`
      : "ask the user to check the current state, since no tool here only reads";
  const what = startedAs
    ? `this same call to ${toolName} (same step, same arguments) had already started in this run as call "${startedAs.toolCallId}", before the step was asked again`
    : `the call to ${toolName} had started when the run was interrupted, and no result was recorded`;
  return JSON.stringify({
    error: "outcome_unknown",
    message: `Outcome unknown: ${what}, so whether it took effect is unknown. It was not run again. Before calling ${toolName} again, ${how}; call it again only for what is still needed.`,
    read_only_tools: [...readOnlyTools],
    ...(startedAs?.content !== undefined ? { earlier_result: startedAs.content } : {}),
  });
}
