import { canonicalJson } from "../../internal/canonical-json.js";
import {
  isSecretKey,
  redactedMarker,
  redactText,
  redactValue,
  type SecretRegistry,
} from "../../internal/redact.js";
import type { ModelMessage } from "../model-message.js";
import type { RunState } from "./run-state.js";

/**
 * A copy of the state with secrets removed, as it may be saved or shown:
 * secret-named fields and secret-shaped strings everywhere, including inside
 * the JSON text of tool-call arguments, which plain value redaction would
 * pass over as an opaque string. `secrets` are the agent's registered ones.
 */
export function redactRunState(state: RunState, secrets?: SecretRegistry): RunState {
  const known = secrets?.values() ?? [];
  const redacted = redactValue(state, known) as RunState;
  return {
    ...redacted,
    messages: redacted.messages.map((message) => redactToolCallArguments(message, known)),
    pendingCalls: redacted.pendingCalls.map((call) => ({
      ...call,
      rawArguments: redactArgumentsText(call.rawArguments, known),
    })),
  };
}

/**
 * True when redaction would change `value`: it holds a secret, so a run
 * state cannot keep it faithfully.
 */
export function holdsSecret(value: unknown, secrets?: SecretRegistry): boolean {
  const known = secrets?.values() ?? [];
  return canonicalJson(redactValue(value, known)) !== canonicalJson(value);
}

/** Messages with secrets removed (`known`: the agent's registered ones), inside the JSON text of tool-call arguments too. */
export function redactMessages(
  messages: readonly ModelMessage[],
  known: readonly string[],
): ModelMessage[] {
  return (redactValue(messages, known) as ModelMessage[]).map((message) =>
    redactToolCallArguments(message, known),
  );
}

function redactToolCallArguments(message: ModelMessage, known: readonly string[]): ModelMessage {
  if (message.role !== "assistant") return message;
  const { tool_calls: calls, function_call: legacy } = message;
  if (!calls && !legacy) return message;
  return {
    ...message,
    ...(calls
      ? {
          tool_calls: calls.map((call) => ({
            ...call,
            function: {
              ...call.function,
              arguments: redactArgumentsText(call.function.arguments, known),
            },
          })),
        }
      : {}),
    ...(legacy
      ? { function_call: { ...legacy, arguments: redactArgumentsText(legacy.arguments, known) } }
      : {}),
  };
}

/**
 * The arguments text with secrets replaced, unchanged (byte for byte) when
 * it holds none. JSON encoded twice (a string holding JSON) is unwrapped as
 * the agent decodes it; text that does not parse is scrubbed as text.
 */
export function redactArgumentsText(text: string, known: readonly string[]): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return redactUnparsedText(text, known);
  }
  if (typeof parsed === "string") {
    const inner = redactArgumentsText(parsed, known);
    return inner === parsed ? text : JSON.stringify(inner);
  }
  const redacted = redactValue(parsed, known);
  return canonicalJson(redacted) !== canonicalJson(parsed) ? JSON.stringify(redacted) : text;
}

// A `"key": value` pair in JSON-like text, its quotes possibly escaped
// (JSON inside a string); the value is a string (maybe cut short) or a bare word.
// A pair starts where a run of backslashes starts (starting inside one would
// rescan it once per backslash), and a run of backslashes inside the value is
// taken whole unless a quote ends it, so the value is read in one way.
const keyValuePattern =
  /(?<!\\)(\\*")([^"\\]{1,100})(\\*"\s*:\s*)(\\*"(?:[^"\\]|\\+(?!["\\]))*(?:\\*")?|[^,}\]\s]+)/g;

/** Text that is not JSON: secret-shaped strings and the values of secret-named keys removed. */
function redactUnparsedText(text: string, known: readonly string[]): string {
  return redactText(text, known).replace(
    keyValuePattern,
    (pair, open: string, key: string, separator: string) =>
      isSecretKey(key) ? `${open}${key}${separator}${open}${redactedMarker}${open}` : pair,
  );
}
