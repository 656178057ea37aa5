import { spawn } from "node:child_process";
import type { AuditLogHead } from "../agent/approval/audit-log.js";
import { ConfigurationError } from "../errors/configuration-error.js";

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
 * writer cannot rewrite it together with the log. Resolves when the
 * command exits 0; anything else (a failure, no exit within 30 s) throws,
 * naming the command and its exit, and the append that wrote the head
 * fails with it. The command inherits the environment without the audit
 * and state keys.
 */
export function anchorAuditHead(command: string, head: AuditLogHead): Promise<void> {
  const env = { ...process.env };
  for (const name of withheldVariables) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], {
      env,
      stdio: ["pipe", "ignore", "pipe"],
      timeout: anchorTimeoutMs,
    });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 2_000) stderr += chunk;
    });
    child.on("error", (error) => {
      reject(
        new Error(`the audit anchor command could not start (${error.message})`, { cause: error }),
      );
    });
    child.on("close", (code, signal) => {
      if (code === 0) return resolve();
      const ended = signal ? `was stopped by ${signal}` : `exited with ${code}`;
      const said = stderr.trim() === "" ? "" : `: ${stderr.trim().slice(0, 500)}`;
      reject(
        new Error(
          `the audit anchor command ${ended}${said}; the head of ${head.entries} entries was not anchored`,
        ),
      );
    });
    // A command that does not read its stdin closes it early; that is its exit's business.
    child.stdin.on("error", () => {});
    child.stdin.end(`${JSON.stringify(head)}\n`);
  });
}
