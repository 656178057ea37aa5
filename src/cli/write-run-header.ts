import type { CliIo } from "./cli-io.js";
import { serviceNames, serviceVariables } from "./read-service-settings.js";
import type { ResolvedServices } from "./resolve-services.js";

/** What the lines before a run's progress say. */
export interface RunHeader {
  /** The command, e.g. `switchyard run callback-cleanup`. */
  title: string;
  task: string;
  resolved: ResolvedServices;
  /** Who answers approval requests, in words. */
  approvals: string;
  /** The run's id: every audit record of the run carries it (`switchyard audit show <run-id>`). */
  runId?: string | undefined;
}

/**
 * Writes to stderr what is about to run: the command, the run's id, the task, where each
 * service is, who approves, and with a messaging simulator its inbox page.
 */
export function writeRunHeader(io: CliIo, header: RunHeader): void {
  const lines = [header.title];
  if (header.runId !== undefined) lines.push(`run id: ${header.runId}`);
  lines.push(`task: ${header.task}`);
  for (const service of serviceNames) {
    const origin = header.resolved.origins[service];
    const source = origin.simulated ? "simulator" : serviceVariables[service].url;
    lines.push(`  ${service.padEnd(10)} ${source} ${origin.url}`);
  }
  lines.push(`  approvals  ${header.approvals}`);
  const messaging = header.resolved.simulators.messaging;
  if (messaging)
    lines.push(`  inbox      ${messaging.inboxUrl}  (approval questions, in a browser)`);
  lines.push("");
  io.stderr.write(`${lines.join("\n")}\n`);
}
