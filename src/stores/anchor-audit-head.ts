import { spawn } from "node:child_process";
import type { AuditLogHead } from "../agent/approval/audit-log.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import type { Logger } from "../internal/logger.js";
import { redactText } from "../internal/redact.js";

/** How long an anchor command may take before it counts as failed. */
const anchorTimeoutMs = 30_000;

/** Variables an anchor command never sees: the keys stay with the writer. */
const withheldVariables = [
  "SWITCHYARD_AUDIT_SIGNING_KEY",
  "SWITCHYARD_AUDIT_KEY",
  "SWITCHYARD_STATE_KEY",
];

/** Checks an `anchorCommand` option: a non-blank shell command, or undefined. */
export function checkAnchorCommand(command: unknown, owner: string): string | undefined {
  if (command === undefined) return undefined;
  if (typeof command !== "string" || command.trim() === "") {
    throw new ConfigurationError(
      `${owner}'s anchorCommand must be a shell command that reads one head (JSON) from its stdin, e.g. "aws s3 cp - s3://audit-anchors/$(date +%s).json", or be left out.`,
    );
  }
  return command;
}

/**
 * Hands a signed head to the anchor command (`/bin/sh -c <command>`, the
 * head as one line of JSON on its stdin), so a copy lives where the log's
 * writer cannot rewrite it together with the log. Called once the head is
 * stored: the entry it covers is in the trail whatever the command does,
 * so a failure (an exit other than 0, no exit within 30 s) never fails the
 * append. It is a warning on the writer's side (`logger`, else a process
 * warning) naming the command's exit, with what the command wrote to
 * stderr, secrets removed; the next head anchored covers every entry
 * before it. Resolves whether the head was taken. The command inherits the
 * environment without the audit and state keys.
 */
export async function anchorAuditHead(
  command: string,
  head: AuditLogHead,
  logger: Logger | undefined,
): Promise<boolean> {
  const failure = await runAnchorCommand(command, head);
  if (failure === undefined) return true;
  const message = `the audit anchor command ${failure.ended}; the head of ${head.entries} entries is stored but not anchored, and the next head anchored covers it`;
  const stderr = redactText(failure.stderr.trim().slice(0, 500));
  if (logger) logger.warn({ stderr }, message);
  else {
    process.emitWarning(stderr === "" ? message : `${message} (it said: ${stderr})`, {
      code: "SWITCHYARD_AUDIT_ANCHOR_FAILED",
    });
  }
  return false;
}

/** Runs the command with the head on its stdin; undefined when it exits 0, else how it ended and its stderr. */
function runAnchorCommand(
  command: string,
  head: AuditLogHead,
): Promise<{ ended: string; stderr: string } | undefined> {
  const env = { ...process.env };
  for (const name of withheldVariables) delete env[name];
  return new Promise((resolve) => {
    let stderr = "";
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn("/bin/sh", ["-c", command], {
        env,
        stdio: ["pipe", "ignore", "pipe"],
        timeout: anchorTimeoutMs,
      });
    } catch (error) {
      resolve({ ended: `could not start (${(error as Error).message})`, stderr });
      return;
    }
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < 2_000) stderr += chunk;
    });
    child.on("error", (error) => {
      resolve({ ended: `could not start (${error.message})`, stderr });
    });
    child.on("close", (code, signal) => {
      if (code === 0) return resolve(undefined);
      resolve({ ended: signal ? `was stopped by ${signal}` : `exited with ${code}`, stderr });
    });
    // A command that does not read its stdin closes it early; that is its exit's business.
    child.stdin?.on("error", () => {});
    child.stdin?.end(`${JSON.stringify(head)}\n`);
  });
}
