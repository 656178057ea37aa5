import type { CommandSpec, OptionSpec } from "./command-specs.js";
import { commandSpecs } from "./command-specs.js";

/** What the general help says about each example. */
export interface ExampleSummary {
  name: string;
  description: string;
}

/** `switchyard --help`: the commands, the examples and the global flags. */
export function generalHelp(examples: readonly ExampleSummary[]): string {
  const width = Math.max(...commandSpecs.map((spec) => spec.name.length)) + 2;
  const exampleWidth = Math.max(0, ...examples.map((example) => example.name.length)) + 2;
  return [
    "switchyard: tool-calling agents that ask a human before anything that cannot be undone.",
    "",
    "Usage: switchyard <command> [options]",
    "",
    "Commands:",
    ...commandSpecs.map((spec) => `  ${spec.name.padEnd(width)}${spec.summary}`),
    "",
    "Examples (switchyard run <example>):",
    ...examples.map((example) => `  ${example.name.padEnd(exampleWidth)}${example.description}`),
    "",
    "Options:",
    "  -h, --help     Show help (also after a command: switchyard run --help).",
    "  -V, --version  Show the version.",
    "",
    "Environment: SWITCHYARD_<SERVICE>_URL with its token (see docs/command-line.md) replaces a simulator",
    "with your service; SWITCHYARD_STATE_DIR is where run --no-wait saves runs (default",
    ".switchyard); SWITCHYARD_LOG_LEVEL=debug logs as JSON to stderr; SWITCHYARD_DEBUG=1 prints",
    "stack traces.",
    "",
  ].join("\n");
}

/** `switchyard <command> --help` (and `switchyard runs <action> --help`). */
export function commandHelp(
  spec: Omit<CommandSpec, "name"> & { name: string },
  examples: readonly ExampleSummary[],
): string {
  const lines = [`Usage: ${spec.usage}`, "", spec.summary, ""];
  if (spec.name === "run" && examples.length > 0) {
    lines.push(`Examples: ${examples.map((example) => example.name).join(", ")}`, "");
  }
  lines.push("Options:", ...formatOptions(spec.options));
  if (spec.notes.length > 0) lines.push("", ...spec.notes);
  lines.push("");
  return lines.join("\n");
}

function formatOptions(options: readonly OptionSpec[]): string[] {
  const labels = options.map((option) => {
    const long = `--${option.name}${option.valueName ? ` ${option.valueName}` : ""}`;
    return option.short ? `-${option.short}, ${long}` : `    ${long}`;
  });
  const width = Math.max(...labels.map((label) => label.length)) + 2;
  return options.flatMap((option, index) =>
    wrap(option.description, Math.max(40, 98 - width)).map(
      (text, line) => `  ${(line === 0 ? labels[index]! : "").padEnd(width)}${text}`,
    ),
  );
}

/** Splits `text` into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(/\s+/)) {
    if (current !== "" && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else {
      current = current === "" ? word : `${current} ${word}`;
    }
  }
  if (current !== "") lines.push(current);
  return lines;
}
