/**
 * The words the model reads when a tool call did not simply succeed. Each
 * says what went wrong and what to do next, since the model can only act on
 * what it is told.
 */
export const toolMessages = {
  unknownTool(name: string, validNames: readonly string[]): string {
    return validNames.length === 0
      ? `Error: there is no tool named "${name}", and no tools are available. Answer without calling tools.`
      : `Error: there is no tool named "${name}". Valid tool names: ${validNames.join(", ")}. Call one of these, with its exact name.`;
  },

  invalidJson(name: string, detail: string): string {
    return `Error: the arguments for ${name} are not valid JSON (${detail}). Send the arguments as one JSON object matching the tool's parameters and call again.`;
  },

  invalidArguments(name: string, issues: readonly string[]): string {
    return `Error: invalid arguments for ${name}:\n- ${issues.join("\n- ")}\nFix the arguments and call again.`;
  },

  failed(name: string, message: string): string {
    return `Error: the tool ${name} failed: ${message}`;
  },

  timedOut(name: string, timeoutMs: number): string {
    return `Error: the tool ${name} did not finish within ${timeoutMs} ms and was stopped. It may or may not have taken effect; check before calling it again.`;
  },

  refused(name: string, code: string, reason: string): string {
    const why =
      code === "denied"
        ? `the human declined it (${reason})`
        : `approval could not be obtained (${reason})`;
    return `The call to ${name} was not run: ${why}. Do not retry the same call unless the user asks you to.`;
  },

  aborted(name: string): string {
    return `The call to ${name} did not complete: the run was aborted.`;
  },

  unserializable(name: string, detail: string): string {
    return `The tool ${name} ran, but its result could not be turned into JSON (${detail}).`;
  },
};
