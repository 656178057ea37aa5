import { editAnswer } from "../../clients/messaging/messaging-requests.js";
import { duplicateJsonKey } from "../../internal/duplicate-json-key.js";
import { redactedMarker } from "../../internal/redact.js";
import { compileJsonSchema } from "../../tools/compile-json-schema.js";

/** The longest changed arguments read (the JSON of 100 ids fits); a longer text is refused unread. */
export const maximumEditLength = 20_000;

/** Whether changed arguments can be sent as the answer, and if not, what the person must fix. */
export type EditedArgumentsCheck = { ok: true; text: string } | { ok: false; problem: string };

// Ajv's problems can be many: the first few tell the person where to look.
const shownProblems = 5;

/**
 * Checks the changed arguments of "Approve with changes" where the person
 * types them (the inbox page, the terminal), so a change that cannot run is
 * theirs to correct, never sent as an approval: they must be JSON, give each
 * argument once, hold no `[redacted]` marker (it stands for a secret the
 * question does not show), and meet the tool's JSON Schema the question
 * carries (`metadata.arguments_schema`), checked with the library's
 * validator (patterns in linear time: the schema comes with the message).
 * A question without a schema, or with one the validator cannot check, has
 * its edit checked by the agent alone, which re-checks every edit anyway.
 */
export function checkEditedArguments(
  typed: string,
  metadata: Readonly<Record<string, unknown>>,
): EditedArgumentsCheck {
  const text = typed.trim();
  if (text === "") return { ok: false, problem: "the changed arguments are empty" };
  if (text.length > maximumEditLength) {
    return {
      ok: false,
      problem: `the changed arguments are ${text.length} characters long, more than the ${maximumEditLength} a change may have`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      problem: `the changed arguments are not JSON (${(error as Error).message})`,
    };
  }
  const twice = duplicateJsonKey(text);
  if (twice !== undefined) {
    return {
      ok: false,
      problem: `the changed arguments give "${twice.slice(0, 100)}" twice; give each argument once`,
    };
  }
  if (text.includes(redactedMarker)) {
    return {
      ok: false,
      problem: `the changed arguments hold ${redactedMarker}, which stands for a secret the question does not show and would run in its place; deny the action instead, or change it without that value`,
    };
  }
  const problems = schemaProblems(metadata[editAnswer.schemaMetadataKey], value);
  if (problems.length > 0) {
    const more =
      problems.length > shownProblems ? ` (and ${problems.length - shownProblems} more)` : "";
    return {
      ok: false,
      problem: `the changed arguments do not fit the tool's parameters: ${problems.slice(0, shownProblems).join("; ")}${more}`,
    };
  }
  return { ok: true, text };
}

/** Each question's schema compiled once (`null`: one this validator cannot check), for every edit retyped against it. */
const compiledSchemas = new WeakMap<object, ((value: unknown) => string[]) | null>();

function schemaProblems(schema: unknown, value: unknown): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [];
  let check = compiledSchemas.get(schema);
  if (check === undefined) {
    try {
      check = compileJsonSchema(schema as Record<string, unknown>, {
        untrusted: true,
        subject: "The tool's parameters",
      });
    } catch {
      // A schema this validator cannot check is left to the agent, which checks with the tool itself.
      check = null;
    }
    compiledSchemas.set(schema, check);
  }
  return check === null ? [] : check(value);
}
