import type { AnswerMode } from "../../simulators/messaging/answer-mode.js";
import {
  type TerminalAnswerer,
  terminalAnswerer,
} from "../../simulators/messaging/terminal-answerer.js";
import {
  type ReasonerScenarioName,
  reasonerScenarios,
} from "../../simulators/reasoner/reasoner-scenarios.js";
import { startSimulators } from "../../simulators/start-simulators.js";
import { simulatedApprovalMode } from "../approval-mode.js";
import type { CliIo } from "../cli-io.js";
import { CommandError, usageError } from "../command-error.js";
import { findCommandSpec } from "../command-specs.js";
import { exitCodes } from "../exit-codes.js";
import { commandHelp } from "../help-text.js";
import type { SimArguments } from "../parse-arguments.js";
import { serviceVariables } from "../read-service-settings.js";

/**
 * `switchyard sim`: starts the four simulators, prints their addresses,
 * tokens and the `export` lines that point a run at them, and keeps them up
 * until `untilStopped` resolves (Ctrl-C or SIGTERM), then closes them.
 */
export async function simCommand(
  args: SimArguments,
  io: CliIo,
  untilStopped: () => Promise<string>,
): Promise<number> {
  if (args.help) {
    io.stdout.write(commandHelp(findCommandSpec("sim")!, []));
    return 0;
  }
  const scenarios = Object.keys(reasonerScenarios);
  const scenario = args.scenario ?? "auto";
  if (!scenarios.includes(scenario)) {
    throw usageError(`--scenario must be one of ${scenarios.join(", ")}; got "${scenario}".`);
  }
  const mode = simulatedApprovalMode(args.approve, io);
  const answerer: TerminalAnswerer | undefined =
    mode === "ask" ? terminalAnswerer({ input: io.stdin, output: io.stderr }) : undefined;
  const answer: AnswerMode =
    answerer ?? (mode === "browser" ? "never" : (mode as Exclude<typeof mode, "ask" | "browser">));
  const port = (offset: number) => (args.port === undefined ? {} : { port: args.port + offset });
  const stopped = untilStopped();
  try {
    let simulators: Awaited<ReturnType<typeof startSimulators>>;
    try {
      simulators = await startSimulators({
        reasoner: { scenario: scenario as ReasonerScenarioName, ...port(0) },
        orders: port(1),
        docs: port(2),
        messaging: { answer, ...port(3) },
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "EADDRINUSE" || code === "EACCES") {
        throw new CommandError(
          `Could not listen on ports ${args.port}-${(args.port ?? 0) + 3} (${code}): choose another --port, or leave it out for free ports.`,
          exitCodes.notCompleted,
          { cause: error },
        );
      }
      throw error;
    }
    const { reasoner, orders, docs, messaging } = simulators;
    const approvals =
      mode === "ask"
        ? "asked at this terminal"
        : mode === "browser"
          ? "answered on the inbox page"
          : `always ${mode === "approve" ? "approved" : "denied"}`;
    const exports: [string, string | undefined][] = [
      [serviceVariables.reasoner.url, reasoner.url],
      [serviceVariables.reasoner.secret, reasoner.apiKey],
      [serviceVariables.orders.url, orders.url],
      [serviceVariables.orders.secret, orders.token],
      [serviceVariables.docs.url, docs.url],
      [serviceVariables.docs.secret, docs.token],
      [serviceVariables.messaging.url, messaging.url],
      [serviceVariables.messaging.secret, messaging.token],
      ["SWITCHYARD_APPROVER_LINK", messaging.approverLinkId],
    ];
    io.stdout.write(
      [
        "Simulators running (Ctrl-C or SIGTERM stops them):",
        `  reasoner   ${reasoner.url}  key ${reasoner.apiKey}  scenario ${scenario}`,
        `  orders     ${orders.url}  token ${orders.token}`,
        `  docs       ${docs.url}  token ${docs.token}`,
        `  messaging  ${messaging.url}  token ${messaging.token ?? "(none)"}  approver link ${messaging.approverLinkId}  approvals ${approvals}`,
        `  inbox      ${messaging.inboxUrl}  (approval questions, in a browser)`,
        "",
        "Point a run at them from another shell:",
        ...exports
          .filter((entry): entry is [string, string] => entry[1] !== undefined)
          .map(([name, value]) => `export ${name}=${value}`),
        "",
      ].join("\n"),
    );
    const signal = await stopped;
    await simulators.close();
    io.stdout.write(`${signal}: simulators stopped.\n`);
    return exitCodes.completed;
  } finally {
    answerer?.close();
  }
}
