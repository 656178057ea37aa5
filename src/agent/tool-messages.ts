/**
 * The tool messages the model reads when a tool call did not simply succeed.
 * Each is a JSON object with a top-level `error` code (`invalid_arguments`,
 * `unknown_tool`, `tool_failed`, `tool_timeout`, `approval_refused`,
 * `aborted`, `result_unserializable`) and a `message` saying what went wrong
 * and what to do next, since the model can only act on what it is told.
 */
export const toolMessages = {
  unknownTool(name: string, validNames: readonly string[]): string {
    return encode("unknown_tool", {
      message:
        validNames.length === 0
          ? `There is no tool named "${name}", and no tools are available. Answer without calling tools.`
          : `There is no tool named "${name}". Valid tool names: ${validNames.join(", ")}. Call one of these, with its exact name.`,
      valid_tools: [...validNames],
    });
  },

  invalidJson(name: string, detail: string): string {
    return encode("invalid_arguments", {
      message: `The arguments for ${name} are not valid JSON (${detail}). Send the arguments as one JSON object matching the tool's parameters and call again.`,
      issues: [`(root): not valid JSON: ${detail}`],
    });
  },

  invalidArguments(name: string, issues: readonly string[]): string {
    return encode("invalid_arguments", {
      message: `Invalid arguments for ${name}; nothing was run. Fix the arguments listed in issues and call again.`,
      issues: [...issues],
    });
  },

  failed(name: string, message: string): string {
    return encode("tool_failed", { message: `The tool ${name} failed: ${message}` });
  },

  timedOut(name: string, timeoutMs: number): string {
    return encode("tool_timeout", {
      message: `The tool ${name} did not finish within ${timeoutMs} ms and was stopped. It may or may not have taken effect; check before calling it again.`,
      timeout_ms: timeoutMs,
    });
  },

  refused(name: string, code: string, reason: string): string {
    const why =
      code === "denied"
        ? `the human declined it (${reason})`
        : code === "policy_denied"
          ? reason
          : `approval could not be obtained (${reason})`;
    return encode("approval_refused", {
      code,
      reason,
      message: `The call to ${name} was not run: ${why}. Do not retry the same call unless the user asks you to.`,
    });
  },

  aborted(name: string): string {
    return encode("aborted", {
      message: `The call to ${name} did not complete: the run was aborted.`,
    });
  },

  /** The run was aborted while the tool was running: it may have done part or all of its work. */
  abortedWhileRunning(name: string): string {
    return encode("aborted", {
      message: `The run was aborted while ${name} was running, so it was stopped. It may or may not have taken effect; check before calling it again.`,
    });
  },

  unserializable(name: string, detail: string): string {
    return encode("result_unserializable", {
      message: `The tool ${name} ran, but its result could not be turned into JSON (${detail}). Do not call it again just to see the result: it may have taken effect.`,
    });
  },
};

function encode(error: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ error, ...fields });
}
