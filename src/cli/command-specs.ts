import { runStateStatuses } from "../agent/durable/run-state.js";
import { reasonerScenarios } from "../simulators/reasoner/reasoner-scenarios.js";
import { approvalModes } from "./approval-mode.js";
import { durationForms } from "./parse-duration.js";

/** The tool sets `switchyard mcp --tools` chooses from. */
export const mcpToolSetNames = ["orders", "docs", "messaging"] as const;

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
  name: "run" | "runs" | "resume" | "worker" | "examples" | "sim" | "mcp" | "audit";
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
    "How the messaging simulator answers approval requests: ask at this terminal, wait for the answer given on its inbox page in a browser (the address is printed), or always approve or deny. Default: ask on a terminal, deny otherwise.",
};

const allowEditsOption: OptionSpec = {
  name: "allow-edits",
  type: "boolean",
  description:
    "Offer \"Approve with changes\" with each approval question: the person may change the action's arguments (as JSON, on the inbox page or at this terminal) and approve that instead; only the changed action runs, once the tool's schema accepts it, and the model is told. resume and worker need it too to read such an answer.",
};

const approverDirectoryOption: OptionSpec = {
  name: "approver-directory",
  type: "string",
  valueName: "FILE",
  description:
    'Who may approve: a JSON file naming the people, their roles and how each channel recognises them ({ "people": [{ "id": "alice", "name": "Alice Ng", "roles": ["oncall"], "identities": { "terminal": ["alice"], "messaging": ["sl_..."] } }] }). An answer then counts only from a person the asking rule allows, and every decision record names them. Default: the file SWITCHYARD_APPROVER_DIRECTORY names; without one, answers count as they come.',
};

const jsonReportOption: OptionSpec = {
  name: "json",
  type: "boolean",
  description:
    "Print the run's result as one JSON object on stdout (progress still goes to stderr).",
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
  allowEditsOption,
  {
    name: "no-wait",
    type: "boolean",
    description:
      "Stop at the first approval request instead of waiting for the answer: the run is saved, its id printed on stdout (and nothing else there, whether it stopped at a question or ended without one), and switchyard resume goes on with it later. The services the example uses must run outside this command (switchyard sim, or your own).",
  },
  {
    name: "max-tool-calls",
    type: "string",
    valueName: "N",
    description:
      "The run's budget of tool calls (those the model asks for, whatever their outcome), a whole number of at least 1: calls beyond it do not run, and the run ends with status budget_exhausted (exit 1), unless --extend-budget lets a person allow more.",
  },
  {
    name: "max-tokens",
    type: "string",
    valueName: "N",
    description:
      "The run's budget of tokens (input + output, as the model reports them), a whole number of at least 1: reached, the run ends before its next model call with status budget_exhausted (exit 1), unless --extend-budget lets a person allow more.",
  },
  {
    name: "extend-budget",
    type: "boolean",
    description:
      "When the budget is reached, ask the approver (like any approval) to allow as much again, e.g. 10 more tool calls; anything but an approval ends the run with status budget_exhausted.",
  },
  {
    ...approverDirectoryOption,
    description: `${approverDirectoryOption.description} With one, the run is started by you, the local user (your identities.terminal), and your answers at this terminal count as yours: a rule without allowSelfApproval refuses them (self_approval).`,
  },
  {
    name: "started-by",
    type: "string",
    valueName: "ID",
    description:
      "With an approver directory: the directory id of the person the run is started on behalf of, instead of you (the local user). Their own answers then do not count where the rule forbids self-approval.",
  },
  jsonReportOption,
  helpOption,
];

/** Where saved runs are, for the notes of the commands that use them. */
const stateDirectoryNotes = [
  "Runs are saved in the PostgreSQL database SWITCHYARD_DATABASE_URL names when it is set",
  "(schema SWITCHYARD_DATABASE_SCHEMA, default switchyard), else in the directory",
  "SWITCHYARD_STATE_DIR names (default: .switchyard in the working directory).",
];

/** Every command of `switchyard`, in the order help lists them. */
export const commandSpecs: readonly CommandSpec[] = [
  {
    name: "run",
    usage:
      "switchyard run <example> [--task TEXT] [--approve ask|browser|approve|deny] [--allow-edits] [--no-wait] [--max-tool-calls N] [--max-tokens N] [--extend-budget] [--approver-directory FILE [--started-by ID]] [--json]",
    summary: "Run an example agent against the simulators or your services.",
    options: runOptions,
    notes: [
      "Each service uses its local simulator unless its address is set in the environment",
      "(SWITCHYARD_REASONER_URL, SWITCHYARD_ORDERS_URL, SWITCHYARD_DOCS_URL, SWITCHYARD_MESSAGING_URL).",
      "With a real messaging service the person behind SWITCHYARD_APPROVER_LINK answers, so",
      "--approve approve|deny is refused there.",
      "Progress goes to stderr; the final answer (or the --json report) to stdout.",
      "--no-wait: a simulator started by this command stops when it exits, and the answer (and the",
      "data the run acts on) would go with it, so the messaging service and the other services the",
      "example uses must be outside: run switchyard sim in another shell and export the lines it",
      "prints, or set your services' variables. The reasoner may stay simulated (it keeps nothing).",
      "With --no-wait, stdout carries the run's id and nothing else, so once the run was saved",
      "id=$(switchyard run <example> --no-wait) captures its id: a run that stopped at an",
      "approval exits 0 (the expected outcome of --no-wait); one that needed no approval ends as",
      "usual, its answer on stderr, and switchyard runs show <id> prints it again. With --json, the",
      "report (status suspended and runId, or the answer). The question stays open 24 hours.",
      ...stateDirectoryNotes,
      "Exit status: 0 the run completed (a refused approval reported by the agent is still a",
      "completed run) or, with --no-wait, stopped at an approval; 1 it did not complete (max_steps,",
      "budget_exhausted, failed, aborted) or a service could not be reached; 2 bad usage or configuration (unknown",
      "example or flag, missing or rejected token, simulated services with --no-wait, --approve ask",
      "without a terminal). Through npm run, Ctrl-C ends with npm's own status, 130.",
      "At the approval prompt, end of input (Ctrl-D) refuses the question at once.",
    ],
  },
  {
    name: "runs",
    usage:
      "switchyard runs [--status STATUS] [--json] | runs show <run-id> [--json] | runs wake <run-id> | runs cancel <run-id> [--take-over] | runs prune --older-than AGE",
    summary:
      "List the saved runs (id, example, status, last update, approvals waited for); show what one did; cancel one; remove old ones.",
    options: [
      {
        name: "status",
        type: "string",
        valueName: "STATUS",
        description: `Only runs with this status (or these, comma-separated): ${runStateStatuses.join(", ")}.`,
      },
      {
        name: "json",
        type: "boolean",
        description:
          "Print one JSON object on stdout: the state directory, the runs, and the saved files that could not be read.",
      },
      {
        name: "older-than",
        type: "string",
        valueName: "AGE",
        description:
          "runs prune: remove the runs last updated longer ago than AGE (30m, 12h, 7d, 2w), whatever their status but running.",
      },
      {
        name: "take-over",
        type: "boolean",
        description:
          "runs cancel: cancel a run marked running whose process crashed or was killed.",
      },
      helpOption,
    ],
    notes: [
      "runs show <run-id> prints what a run did: its answer, each tool call with its outcome, each",
      "approval (outcome, who, when, the action, its fingerprint) and its error; arguments and",
      "results print as JSON (a person's note as typed), other text a model or service wrote is",
      "quoted; all of it escaped once. With --json, one object on stdout.",
      "runs wake <run-id> makes a suspended run due now (its answer came): an idle worker on",
      "PostgreSQL takes it at once, others at their next look.",
      "runs cancel <run-id> ends a suspended run for good: each question it waits for is withdrawn",
      "through the messaging service the environment names (SWITCHYARD_MESSAGING_URL), where that",
      "still can be done, and the run is saved aborted (error RunCancelled), so resume refuses it.",
      "runs prune --older-than AGE removes old runs: their states and the records of them; the",
      "questions a suspended one waits for are withdrawn first, as runs cancel withdraws them.",
      "Most recently updated first. A saved file that cannot be read is named on stderr (and in",
      "--json under unreadable), never skipped silently.",
      ...stateDirectoryNotes,
    ],
  },
  {
    name: "resume",
    usage:
      "switchyard resume <run-id> [--json] [--take-over] [--allow-edits] [--approver-directory FILE]",
    summary: "Go on with a run that stopped at an approval (switchyard run --no-wait).",
    options: [
      jsonReportOption,
      allowEditsOption,
      {
        ...approverDirectoryOption,
        description: `${approverDirectoryOption.description} Give the same directory the run was started with: the person who started it is kept in the run.`,
      },
      {
        name: "take-over",
        type: "boolean",
        description:
          "Resume a run marked running whose process crashed or was killed. A destructive call it had started is not run again; the model is told its outcome is unknown. Only when no other process works on the run.",
      },
      helpOption,
    ],
    notes: [
      "Reads the answer to the question the run asked, without asking again: approved, the action",
      "runs (once); refused, the agent is told why. The agent is rebuilt from the run's example.",
      "Services come from the environment as for run --no-wait; messaging must be the service the",
      "run asked through (a restarted switchyard sim has forgotten the question).",
      ...stateDirectoryNotes,
      "Exit status: 0 the run completed; 3 the answer is still pending, so the run is suspended",
      "again (nothing is sent again; its id is printed; resume later); 1 it did not complete or a",
      "service could not be reached or another process holds the run; 2 unknown run id, unreadable",
      "saved run, a run that already ended, or bad configuration.",
    ],
  },
  {
    name: "worker",
    usage:
      "switchyard worker [--concurrency N] [--recheck-after DURATION] [--first-recheck-after DURATION] [--checks-per-second N] [--poll-interval DURATION] [--lease DURATION] [--max-attempts N] [--max-retry-after DURATION] [--prune-after DURATION] [--allow-edits] [--approver-directory FILE]",
    summary: "Resume saved runs as their answers come in, until stopped (one of many workers).",
    options: [
      allowEditsOption,
      {
        ...approverDirectoryOption,
        description: `${approverDirectoryOption.description} Give the same directory the runs were started with.`,
      },
      {
        name: "concurrency",
        type: "string",
        valueName: "N",
        description: "Runs in hand at once. Default: 4.",
      },
      {
        name: "recheck-after",
        type: "string",
        valueName: "DURATION",
        description: `The longest wait before a run whose answer is still pending is looked at again (${durationForms}; 0s: at once): the checks start at --first-recheck-after and double up to it. Default: 30s.`,
      },
      {
        name: "first-recheck-after",
        type: "string",
        valueName: "DURATION",
        description:
          "The first wait before a new question is asked about; later checks wait about as long as the run has waited so far. Default: 1s.",
      },
      {
        name: "checks-per-second",
        type: "string",
        valueName: "N",
        description:
          "The fleet's budget of approval checks per second, kept in the store for every worker sharing it (give each the same): runs waiting for answers beyond it wait their turn, the one due longest ago first. Default: no budget.",
      },
      {
        name: "poll-interval",
        type: "string",
        valueName: "DURATION",
        description:
          "How long an idle worker waits before looking for due runs again. Default: 1s.",
      },
      {
        name: "lease",
        type: "string",
        valueName: "DURATION",
        description:
          "How long a claim on a run lasts unless renewed: the runs of a worker that died wait this long for another. Default: 1m.",
      },
      {
        name: "max-attempts",
        type: "string",
        valueName: "N",
        description:
          "Give up on a run whose resume failed N times in a row: it ends failed with its last error (runs show prints both), the questions it waits for are withdrawn, and it is never taken again. Only failures of the resume itself count, not an unreachable database or messaging service. Default: 25.",
      },
      {
        name: "max-retry-after",
        type: "string",
        valueName: "DURATION",
        description:
          "The longest wait before a run whose resume failed is tried again: the waits start at --first-recheck-after and double with each failure in a row, up to it. Long, so that a worker deployed broken for a while does not use up the attempts of the runs waiting on people: with the defaults, --max-attempts 25 takes about 12 hours. Default: 1h.",
      },
      {
        name: "prune-after",
        type: "string",
        valueName: "DURATION",
        description:
          "Delete the runs that ended (completed, max_steps, aborted, failed) longer ago than this, when the worker starts and every 10 minutes. Default: keep them.",
      },
      helpOption,
    ],
    notes: [
      "Takes the runs of switchyard run --no-wait that are due, reads their answers without asking",
      "again, goes on with the answered ones (an approved action runs once) and checks the pending",
      "ones again after 1 s, 2 s, 4 s ... up to 30 s, without rewriting them or sending anything;",
      "prints a line per run when it changes: one when its question is found still open (not one",
      "per check), one when it ends. Run one on each of several machines sharing",
      "SWITCHYARD_DATABASE_URL: a worker that dies loses its runs to the others when its claims",
      "expire (a minute), and a call it had started is reported as of unknown outcome, never rerun.",
      "Services come from the environment as for run --no-wait.",
      ...stateDirectoryNotes,
      "Each time the store cannot be reached (a wrong address or password), the error is printed on",
      "stderr with the variable to check, and the worker tries again.",
      "SIGTERM or Ctrl-C: take no more runs, finish those in hand, exit 0 (1 when the worker never",
      "reached its store); a second one releases them to other workers and exits at once.",
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
    usage: "switchyard sim [--approve ask|browser|approve|deny] [--scenario NAME] [--port N]",
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
  {
    name: "mcp",
    usage:
      "switchyard mcp [--tools orders,docs,messaging] [--http PORT [--allowed-origins ORIGINS] [--allowed-hosts HOSTS]] [--approve browser|approve|deny|ask|elicit [--elicitation-timeout DURATION]] [--approver-directory FILE] [--host-user NAME]",
    summary: "Serve the tools to an MCP host (over stdio, or Streamable HTTP with --http).",
    options: [
      {
        name: "tools",
        type: "string",
        valueName: "SETS",
        description: `The tool sets to serve, comma-separated: ${mcpToolSetNames.join(", ")}. Default: all.`,
      },
      {
        name: "http",
        type: "string",
        valueName: "PORT",
        description:
          "Serve over Streamable HTTP on 127.0.0.1:PORT/mcp (0 for a free port) instead of stdio.",
      },
      {
        name: "allowed-origins",
        type: "string",
        valueName: "ORIGINS",
        description:
          "With --http: the origins (scheme://host[:port], comma-separated) of web pages allowed to call, besides the server's own. A request with any other Origin header is answered 403. Default: none.",
      },
      {
        name: "allowed-hosts",
        type: "string",
        valueName: "HOSTS",
        description:
          "With --http: the host names (comma-separated, no port) a request's Host header may name; any other is answered 403 (DNS rebinding). Default: localhost, 127.0.0.1, [::1].",
      },
      {
        ...approveOption,
        valueName: [...approvalModes, "elicit"].join("|"),
        description:
          "How approval requests are answered: by you in a browser, on the messaging simulator's inbox page whose address is printed to stderr; always approve or deny; asked at this terminal (only with --http: over stdio the terminal carries MCP); or elicit: the MCP host asks its user (elicitation, over stdio or HTTP; a host that does not support it gets each gated call refused). Default: deny over stdio; over HTTP, ask on a terminal, deny otherwise.",
      },
      {
        name: "elicitation-timeout",
        type: "string",
        valueName: "DURATION",
        description: `With --approve elicit: how long the host's user has to answer each approval question (${durationForms}); then the call does not run. The host's own request timeout must be longer, or reset on progress (the server sends progress every 15 seconds while the person reads, when the host asked for it). Default: 10m.`,
      },
      {
        ...approverDirectoryOption,
        description: `${approverDirectoryOption.description} The MCP host's user (--host-user) starts each call, and answers its elicitation (their identities.mcp); answers at this terminal (--approve ask) count as the local user's (identities.terminal).`,
      },
      {
        name: "host-user",
        type: "string",
        valueName: "NAME",
        description:
          "Who the MCP host's user is: each call over MCP is theirs (the host asks), and so is the answer to its elicitation; an approver directory recognises them by identities.mcp. Default: the local user name (the host runs this command as its own user).",
      },
      helpOption,
    ],
    notes: [
      "Services come from the environment as for run, their simulators otherwise. A gated tool",
      "(delete_callbacks, cancel_orders, push_docs_files, ...) asks the person behind",
      "SWITCHYARD_APPROVER_LINK through the messaging service; the host's call returns after their",
      "answer, and a refusal is a tool error saying why. Nothing the host sends counts as approval,",
      "except with --approve elicit: then the host asks its user (form elicitation),",
      "showing the whole call, and only their approve runs it, once.",
      "Over stdio, stdout carries MCP and nothing else; notes and logs go to stderr. The command",
      "ends when the host closes stdin.",
      "Over HTTP every request needs Authorization: Bearer <token>, the token from",
      "SWITCHYARD_MCP_TOKEN (at least 16 characters), or one generated and printed to stderr.",
      "HTTP hosts open a session (initialize; then the Mcp-Session-Id header) and end it with",
      "DELETE; at most 100 are kept, and one unused for 30 minutes ends. A call still waiting for",
      "its approval when its session ends is refused and does not run.",
      "Every approval decision is appended to the audit log, as for run (switchyard audit show <run-id>;",
      "each call is a run of its own, named on stderr with its decision).",
      "Ctrl-C or SIGTERM stops it. See examples/mcp-server.md to register it with a host.",
    ],
  },
  {
    name: "audit",
    usage:
      "switchyard audit verify [<file>] [--public-key FILE] [--anchor FILE] | show <run-id> [--file PATH] | export [<run-id>] [--since TIME] [--until TIME] [--out FILE] | keygen [<file>]",
    summary:
      "Check the approval audit log (or an exported bundle) for changes, list one run's decisions, export them signed, or make a signing key.",
    options: [
      {
        name: "file",
        type: "string",
        valueName: "PATH",
        description:
          "The audit log file to read (show, export). Default: the runs' audit log: the PostgreSQL run store's when SWITCHYARD_DATABASE_URL is set, else SWITCHYARD_AUDIT_LOG, else audit.jsonl in the state directory.",
      },
      {
        name: "public-key",
        type: "string",
        valueName: "FILE",
        description:
          "The trail's Ed25519 public key (SPKI PEM) to check signatures with: all verify needs of a signed log or bundle, no secret. Default: the public half of SWITCHYARD_AUDIT_SIGNING_KEY. keygen: where the public key goes (default: the private key's file, .pub.pem).",
      },
      {
        name: "anchor",
        type: "string",
        valueName: "FILE",
        description:
          "verify: a head of the trail kept elsewhere (what SWITCHYARD_AUDIT_ANCHOR received; the last line is used). The trail must still be that chain and hold its entries, which catches a trail emptied and begun again, or an older copy of log and head restored.",
      },
      {
        name: "since",
        type: "string",
        valueName: "TIME",
        description: "export: only records decided at or after this ISO 8601 time.",
      },
      {
        name: "until",
        type: "string",
        valueName: "TIME",
        description: "export: only records decided before this ISO 8601 time.",
      },
      {
        name: "out",
        type: "string",
        valueName: "FILE",
        description: "export: write the bundle to FILE instead of stdout.",
      },
      jsonReportOption,
      helpOption,
    ],
    notes: [
      "Every approval decision of a run of this command (a person's answer, a policy rule, a",
      "standing approval, an expiry, a refusal by the gate) is appended to the audit log as one",
      "record, each chained to the one before by its hash; the head (count and last hash) is kept",
      "apart, so a cut from the end is caught. With SWITCHYARD_AUDIT_SIGNING_KEY (an Ed25519",
      "private key, PKCS#8 PEM; make one with keygen) each entry and head is signed, and verify",
      "needs only the public key (--public-key). With SWITCHYARD_AUDIT_KEY the hashes are",
      "HMAC-SHA256 under that key and verify needs it. Without either they show accidental",
      "damage, not forgery. A keyed or signed trail with no head, or emptied, does not verify.",
      "SWITCHYARD_AUDIT_ANCHOR names a shell command that receives each head on stdin, to keep a",
      "copy elsewhere; verify --anchor checks the trail against it. verify without a file checks",
      "the runs' audit log; given a bundle, it checks the bundle offline. It exits 0 when intact,",
      "1 when an entry was changed, removed, reordered or cut, 2 when there is no such log or its",
      "key is not given. show lists the decisions of one run, every value escaped (exit 1 when it",
      "has none, or a record is of a shape Switchyard never writes). export writes a run's (or a",
      "time range's) signed records, the signed head and the public key as one JSON bundle.",
      "keygen writes a new key pair (never over an existing file).",
    ],
  },
];

/** The spec of a command, or undefined when there is none of that name. */
export function findCommandSpec(name: string): CommandSpec | undefined {
  return commandSpecs.find((spec) => spec.name === name);
}

/** A subcommand of `switchyard runs`, with a help of its own. */
export interface RunsActionSpec extends Omit<CommandSpec, "name"> {
  name: "runs show" | "runs cancel" | "runs prune";
}

/** `switchyard runs show|cancel|prune --help`. */
export const runsActionSpecs: readonly RunsActionSpec[] = [
  {
    name: "runs show",
    usage: "switchyard runs show <run-id> [--json]",
    summary: "Show what a saved run did.",
    options: [
      {
        name: "json",
        type: "boolean",
        description: "Print the run as one JSON object on stdout.",
      },
      helpOption,
    ],
    notes: [
      "Prints the run's answer, each tool call with its outcome, each approval (outcome, who, when,",
      "the action, its fingerprint) and its error; arguments and results print as JSON (a person's",
      "note as typed), other text a model or service wrote is quoted; all of it escaped once.",
      "switchyard runs lists the run ids.",
      ...stateDirectoryNotes,
    ],
  },
  {
    name: "runs cancel",
    usage: "switchyard runs cancel <run-id> [--take-over]",
    summary: "End a suspended run for good, withdrawing the questions it waits for.",
    options: [
      {
        name: "take-over",
        type: "boolean",
        description:
          "Cancel a run marked running whose process crashed or was killed. Only when no other process works on the run.",
      },
      helpOption,
    ],
    notes: [
      "Each question the run waits for is withdrawn through the messaging service the environment",
      "names (SWITCHYARD_MESSAGING_URL), where that still can be done, and the run is saved aborted",
      "(error RunCancelled), so resume refuses it. switchyard runs --status suspended lists the runs",
      "waiting for an answer.",
      ...stateDirectoryNotes,
    ],
  },
  {
    name: "runs prune",
    usage: "switchyard runs prune --older-than AGE",
    summary: "Remove the saved runs not updated for longer than AGE.",
    options: [
      {
        name: "older-than",
        type: "string",
        valueName: "AGE",
        description:
          "Remove the runs last updated longer ago than AGE (30m, 12h, 7d, 2w), whatever their status but running. Required.",
      },
      helpOption,
    ],
    notes: [
      "Removes their states and the records of them. Each question a suspended run waits for is",
      "withdrawn first, as runs cancel withdraws it (through SWITCHYARD_MESSAGING_URL), one line each",
      "on stderr, so nobody answers a question whose answer would run nothing.",
      ...stateDirectoryNotes,
    ],
  },
];
