import { reasonerScenarios } from "../simulators/reasoner/reasoner-scenarios.js";
import { approvalModes } from "./approval-mode.js";

/** One flag of a command, as parsed and as shown in its help. */
export interface OptionSpec {
  name: string;
  type: "string" | "boolean";
  short?: string;
  /** How the value is shown in help, e.g. `TEXT`. */
  valueName?: string;
  description: string;
}

/** A command: its usage line, what it does, its flags and notes for its help. */
export interface CommandSpec {
  name: "run" | "examples" | "sim";
  usage: string;
  summary: string;
  options: readonly OptionSpec[];
  notes: readonly string[];
}

const helpOption: OptionSpec = {
  name: "help",
  type: "boolean",
  short: "h",
  description: "Show this help.",
};

const approveOption: OptionSpec = {
  name: "approve",
  type: "string",
  valueName: approvalModes.join("|"),
  description:
    "How the messaging simulator answers approval requests: ask at this terminal, or always approve or deny. Default: ask on a terminal, deny otherwise.",
};

/** The options of `switchyard run` (and of an example file run on its own). */
export const runOptions: readonly OptionSpec[] = [
  {
    name: "task",
    type: "string",
    valueName: "TEXT",
    description: "The task given to the agent, instead of the example's default task.",
  },
  approveOption,
  {
    name: "json",
    type: "boolean",
    description:
      "Print the run's result as one JSON object on stdout (progress still goes to stderr).",
  },
  helpOption,
];

/** Every command of `switchyard`, in the order help lists them. */
export const commandSpecs: readonly CommandSpec[] = [
  {
    name: "run",
    usage: "switchyard run <example> [--task TEXT] [--approve ask|approve|deny] [--json]",
    summary: "Run an example agent against the simulators or your services.",
    options: runOptions,
    notes: [
      "Each service uses its local simulator unless its address is set in the environment",
      "(SWITCHYARD_REASONER_URL, SWITCHYARD_ORDERS_URL, SWITCHYARD_DOCS_URL, SWITCHYARD_MESSAGING_URL).",
      "With a real messaging service the person behind SWITCHYARD_APPROVER_LINK answers, so",
      "--approve approve|deny is refused there.",
      "Progress goes to stderr; the final answer (or the --json report) to stdout.",
      "Exit status: 0 the run completed (a refused approval reported by the agent is still a",
      "completed run), 1 it did not (max_steps, failed, aborted) or a service could not be",
      "reached, 2 bad usage or configuration (unknown example or flag, missing or rejected token).",
    ],
  },
  {
    name: "examples",
    usage: "switchyard examples",
    summary: "List the example agents with their default tasks.",
    options: [helpOption],
    notes: [],
  },
  {
    name: "sim",
    usage: "switchyard sim [--approve ask|approve|deny] [--scenario NAME] [--port N]",
    summary: "Start all four simulators and print their addresses and tokens until stopped.",
    options: [
      approveOption,
      {
        name: "scenario",
        type: "string",
        valueName: "NAME",
        description: `The reasoner simulator's scripted model: ${Object.keys(reasonerScenarios).join(", ")}. Default: auto, which picks one from the task.`,
      },
      {
        name: "port",
        type: "string",
        valueName: "N",
        description:
          "Listen on ports N (reasoner), N+1 (orders), N+2 (docs) and N+3 (messaging) instead of free ones.",
      },
      helpOption,
    ],
    notes: ["Point a run at them with the printed export lines; Ctrl-C or SIGTERM stops them."],
  },
];

/** The spec of a command, or undefined when there is none of that name. */
export function findCommandSpec(name: string): CommandSpec | undefined {
  return commandSpecs.find((spec) => spec.name === name);
}
