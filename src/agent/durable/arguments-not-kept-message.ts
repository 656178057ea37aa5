/**
 * The tool message for a call of a resumed step that had not run yet and
 * whose saved arguments held a secret: the state kept `[redacted]` in its
 * place, so the call is not run with it. Same JSON shape as the other tool
 * messages.
 */
export function argumentsNotKeptMessage(toolName: string, issue: string): string {
  return JSON.stringify({
    error: "invalid_arguments",
    message: `The run was interrupted before the call to ${toolName} ran, and its arguments held a secret, which a saved run never keeps; nothing was run. Call ${toolName} again with its full arguments if it is still needed.`,
    issues: [issue],
  });
}
