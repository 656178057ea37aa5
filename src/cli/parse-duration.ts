import { usageError } from "./command-error.js";

const units: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** What a duration flag accepts, for its help and its error. */
export const durationForms = "such as 500ms, 30s, 5m, 12h, 7d or 2w";

/**
 * Reads a duration flag's value: a whole number and a unit, `ms`, `s`
 * seconds, `m` minutes, `h` hours, `d` days or `w` weeks, in milliseconds.
 * Throws a usage error naming the flag (`what`) and the forms it takes
 * when the text is not one, or is below `least` milliseconds.
 */
export function parseDuration(text: string | undefined, what: string, least = 1): number {
  const match = /^(\d+)\s*(ms|s|m|h|d|w)$/i.exec(text?.trim() ?? "");
  const milliseconds = match ? Number(match[1]) * units[match[2]!.toLowerCase()]! : Number.NaN;
  if (!Number.isSafeInteger(milliseconds) || milliseconds < least) {
    const floor = least > 1 ? ` of at least ${least} ms` : least === 0 ? "" : " above zero";
    throw usageError(
      `${what} needs a duration${floor}, ${durationForms}${text === undefined ? "" : `; got "${text}"`}.`,
    );
  }
  return milliseconds;
}
