import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type {
  ApprovalAuditLog,
  ApprovalAuditRecord,
} from "../../src/agent/approval/approval-audit-record.js";
import type { ApprovalAction } from "../../src/agent/approver.js";
import { JsonlAuditLog, verifyAuditLog } from "../../src/stores/jsonl-audit-log.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(
    directories.map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

async function logFile(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "switchyard-audit-"));
  directories.push(directory);
  return join(directory, "nested", "audit.jsonl");
}

function record(index: number): ApprovalAuditRecord {
  return {
    action: "delete_callbacks",
    toolCallId: `call_${index}`,
    runId: "run_1",
    fingerprint: `sha256:${String(index).padStart(64, "0")}`,
    outcome: index % 2 === 0 ? "approved" : "refused",
    requestedAt: "2026-01-01T00:00:00.000Z",
    decidedAt: "2026-01-01T00:00:01.000Z",
  };
}

describe("JsonlAuditLog: a hash-chained log that shows any change", () => {
  it("appends chained lines that verify, in order, also when appends overlap", async () => {
    const path = await logFile();
    const log = new JsonlAuditLog({ path });
    await Promise.all([1, 2, 3].map((index) => log.append(record(index))));
    // A second writer (a later process) continues the same chain.
    await new JsonlAuditLog({ path }).append(record(4));
    const verification = await verifyAuditLog(path);
    expect(verification).toMatchObject({ intact: true, entries: 4, problems: [] });
    expect(verification.records.map((entry) => entry.toolCallId)).toEqual([
      "call_1",
      "call_2",
      "call_3",
      "call_4",
    ]);
  });

  it.each([
    [
      "a changed outcome",
      (lines: string[]) => {
        lines[1] = lines[1]!.replace('"outcome":"approved"', '"outcome":"refused"');
      },
      /line 2: its content does not match its hash/,
    ],
    ["a removed line", (lines: string[]) => void lines.splice(1, 1), /line 2: numbered 3/],
    [
      "two lines swapped",
      (lines: string[]) => void lines.splice(0, 2, lines[1]!, lines[0]!),
      /line 1: numbered 2/,
    ],
  ])("reports %s", async (_name, alter, problem) => {
    const path = await logFile();
    const log = new JsonlAuditLog({ path });
    for (const index of [1, 2, 3]) await log.append(record(index));
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    alter(lines);
    await writeFile(path, `${lines.join("\n")}\n`);
    const verification = await verifyAuditLog(path);
    expect(verification.intact).toBe(false);
    expect(verification.problems.join("\n")).toMatch(problem);
  });

  it("refuses to chain onto a log whose last line is broken", async () => {
    const path = await logFile();
    const log = new JsonlAuditLog({ path });
    await log.append(record(1));
    await writeFile(path, `${await readFile(path, "utf8")}{"half`);
    await expect(log.append(record(2))).rejects.toThrow(/switchyard audit verify/);
  });
});

describe("every approval decision is an audit record", () => {
  function gatedTool() {
    const executions: unknown[] = [];
    const tool = defineTool({
      name: "delete_callbacks",
      description: "Deletes callbacks.",
      parameters: z.object({ ids: z.array(z.string()) }),
      needsApproval: true,
      target: { service: "orders", environment: "sandbox" },
      execute: (args) => {
        executions.push(args);
        return { deleted: args.ids.length };
      },
    });
    return { tool, executions };
  }

  it("a person's approval and denial, a policy rule and an expiry each reach the log and the hook", async () => {
    const path = await logFile();
    const { tool, executions } = gatedTool();
    const hooked: ApprovalAuditRecord[] = [];
    const approver = new ScriptedApprover([
      (action: ApprovalAction) => ({
        outcome: "approved",
        fingerprint: action.fingerprint,
        interactionId: "int_1",
        approverLink: "sl_ops",
        approvedBy: "Dana",
        questionDigest: "sha256:abc",
      }),
      () => ({
        outcome: "refused",
        code: "denied",
        reason: "no",
        note: "wrong host",
        interactionId: "int_2",
      }),
      () => ({ outcome: "expired", reason: "nobody answered", interactionId: "int_3" }),
    ]);
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "delete_callbacks", arguments: { ids: ["a"] } },
          { name: "delete_callbacks", arguments: { ids: ["b"] } },
          { name: "delete_callbacks", arguments: { ids: ["c"] } },
          { name: "delete_callbacks", arguments: { ids: ["trusted"] } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools: [tool],
      approver,
      toolConcurrency: 1,
      approvalPolicy: {
        rules: [
          {
            name: "trusted id",
            decision: "allow",
            when: (args) => (args as { ids: string[] }).ids[0] === "trusted",
          },
        ],
      },
      auditLog: new JsonlAuditLog({ path }),
      onApprovalDecided: (entry) => void hooked.push(entry),
    });
    await agent.run("tidy", { suspendOnApproval: false });
    expect(executions).toEqual([{ ids: ["a"] }, { ids: ["trusted"] }]);

    const verification = await verifyAuditLog(path);
    expect(verification.intact).toBe(true);
    expect(verification.records).toEqual([
      expect.objectContaining({
        outcome: "approved",
        decidedBy: "person",
        approverLink: "sl_ops",
        approvedBy: "Dana",
        questionDigest: "sha256:abc",
        interactionId: "int_1",
      }),
      expect.objectContaining({
        outcome: "refused",
        decidedBy: "person",
        code: "denied",
        note: "wrong host",
      }),
      expect.objectContaining({
        outcome: "expired",
        decidedBy: "expiry",
        reason: "nobody answered",
      }),
      expect.objectContaining({ outcome: "approved", decidedBy: "policy", rule: "trusted id" }),
    ]);
    expect(verification.records[2]).not.toHaveProperty("code");
    expect(hooked).toEqual(verification.records);
  });

  it("an approval the log cannot record is not run (fail closed); a throwing hook changes nothing", async () => {
    const { tool, executions } = gatedTool();
    const broken: ApprovalAuditLog = {
      append: () => Promise.reject(new Error("disk full")),
    };
    const model = new ScriptedModel([
      { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["a"] } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools: [tool],
      approver: new ScriptedApprover(["approve"]),
      auditLog: broken,
    });
    const result = await agent.run("tidy");
    expect(executions).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({
      outcome: "refused",
      code: "audit_not_recorded",
    });

    const hooked = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["a"] } }] },
        { text: "done" },
      ]),
      tools: [tool],
      approver: new ScriptedApprover(["approve"]),
      onApprovalDecided: () => {
        throw new Error("shipping failed");
      },
    });
    await hooked.run("tidy");
    expect(executions).toEqual([{ ids: ["a"] }]);
  });
});
