import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type {
  ApprovalAuditLog,
  ApprovalAuditRecord,
} from "../../src/agent/approval/approval-audit-record.js";
import type { ApprovalAction } from "../../src/agent/approver.js";
import { canonicalJson } from "../../src/internal/canonical-json.js";
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
      /entry 2: its content does not match its hash/,
    ],
    ["a removed line", (lines: string[]) => void lines.splice(1, 1), /entry 2: numbered 3/],
    [
      "two lines swapped",
      (lines: string[]) => void lines.splice(0, 2, lines[1]!, lines[0]!),
      /entry 1: numbered 2/,
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

const key = "0123456789abcdef".repeat(2);

/** What someone who can write the file but has no key does: rewrite lines and recompute every plain hash. */
function recomputePlainChain(lines: string[]): string[] {
  let prev = `sha256:${"0".repeat(64)}`;
  return lines.map((line, index) => {
    const entry = JSON.parse(line) as { record: unknown };
    const seq = index + 1;
    const content = `${prev}\n${seq}\n${canonicalJson(entry.record)}`;
    const hash = `sha256:${createHash("sha256").update(content, "utf8").digest("hex")}`;
    const rewritten = JSON.stringify({ seq, prev, record: entry.record, hash });
    prev = hash;
    return rewritten;
  });
}

describe("JsonlAuditLog: a keyed chain and a head catch forgery and cuts", () => {
  it("a denial turned into an approval with every hash recomputed is ALTERED under the key", async () => {
    const path = await logFile();
    const log = new JsonlAuditLog({ path, auditKey: key });
    for (const index of [1, 2, 3]) await log.append(record(index));
    const keyed = await verifyAuditLog(path, { auditKey: key });
    expect(keyed).toMatchObject({ intact: true, chain: "keyed", entries: 3, problems: [] });

    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    lines[0] = lines[0]!.replace('"outcome":"refused"', '"outcome":"approved"');
    await writeFile(path, `${recomputePlainChain(lines).join("\n")}\n`);
    const forged = await verifyAuditLog(path, { auditKey: key });
    expect(forged.intact).toBe(false);
    expect(forged.records[0]?.outcome).toBe("approved");
    expect(forged.problems.join("\n")).toMatch(/carries no key|head/);
  });

  it("a chain recomputed under another key is ALTERED, and a keyed log needs its key", async () => {
    const path = await logFile();
    await new JsonlAuditLog({ path, auditKey: key }).append(record(1));
    const other = await verifyAuditLog(path, { auditKey: "x".repeat(32) });
    expect(other.intact).toBe(false);
    expect(other.problems.join("\n")).toMatch(/entry 1: its content does not match its HMAC/);
    await expect(verifyAuditLog(path)).rejects.toThrow(/keyed .*needs its key/);
    await expect(new JsonlAuditLog({ path }).append(record(2))).rejects.toThrow(/is keyed/);
    expect(() => new JsonlAuditLog({ path, auditKey: "short" })).toThrow(/at least 32/);
  });

  it("without a key the chain is plain SHA-256: it shows damage, and a recomputed chain passes", async () => {
    const path = await logFile();
    const log = new JsonlAuditLog({ path });
    for (const index of [1, 2]) await log.append(record(index));
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    lines[0] = lines[0]!.replace('"outcome":"refused"', '"outcome":"approved"');
    const recomputed = recomputePlainChain(lines);
    await writeFile(path, `${recomputed.join("\n")}\n`);
    const lastHash = (JSON.parse(recomputed[1]!) as { hash: string }).hash;
    await writeFile(`${path}.head`, JSON.stringify({ entries: 2, lastHash }));
    // What the docs say of an unkeyed chain: anyone who can write the file can recompute it.
    expect(await verifyAuditLog(path)).toMatchObject({ intact: true, chain: "unkeyed" });
  });

  it.each([
    ["with a key", key],
    ["without a key", undefined],
  ])("a line cut from the end is caught by the head (%s)", async (_name, auditKey) => {
    const path = await logFile();
    const log = new JsonlAuditLog({ path, auditKey });
    for (const index of [1, 2, 3]) await log.append(record(index));
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    await writeFile(path, `${lines.slice(0, 2).join("\n")}\n`);
    const cut = await verifyAuditLog(path, { auditKey });
    expect(cut.intact).toBe(false);
    expect(cut.problems.join("\n")).toMatch(/the head says 3 entries .* holds 2/);
  });

  it("with a key, a removed head is a problem; an old log without one is read, as unkeyed", async () => {
    const path = await logFile();
    const log = new JsonlAuditLog({ path, auditKey: key });
    await log.append(record(1));
    await unlink(`${path}.head`);
    const headless = await verifyAuditLog(path, { auditKey: key });
    expect(headless.intact).toBe(false);
    expect(headless.problems.join("\n")).toMatch(/no head/);

    // A log written before keys and heads: its chain checks, and the note says what it cannot show.
    const old = await logFile();
    await mkdir(dirname(old), { recursive: true });
    const oldLines = recomputePlainChain(
      [record(1), record(2)].map((entry) => JSON.stringify({ record: entry })),
    );
    await writeFile(old, `${oldLines.join("\n")}\n`);
    const verification = await verifyAuditLog(old);
    expect(verification).toMatchObject({ intact: true, chain: "unkeyed", entries: 2 });
    expect(verification.notes.join("\n")).toMatch(/no head .*cut from the end cannot be detected/);
    // Appending to it with a key keys the rest: the keyed entry vouches for the old ones.
    await new JsonlAuditLog({ path: old, auditKey: key }).append(record(3));
    const upgraded = await verifyAuditLog(old, { auditKey: key });
    expect(upgraded).toMatchObject({ intact: true, chain: "keyed", entries: 3 });
    expect(upgraded.notes.join("\n")).toMatch(/entries 1 to 2 were written before a key/);
  });

  it("read refuses a line of a shape Switchyard never writes", async () => {
    const path = await logFile();
    const log = new JsonlAuditLog({ path });
    await log.append(record(1));
    await log.append({ ...record(2), decidedBy: "\u001b[2Jperson" as never });
    await expect(log.read()).rejects.toThrow(/line 2: not an audit entry of a known shape/);
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
    // The call a rule allows does not wait for the step's question: the order is not fixed.
    expect(executions).toHaveLength(2);
    expect(executions).toEqual(expect.arrayContaining([{ ids: ["a"] }, { ids: ["trusted"] }]));

    const verification = await verifyAuditLog(path);
    expect(verification.intact).toBe(true);
    expect(verification.records).toHaveLength(4);
    expect(verification.records).toEqual(
      expect.arrayContaining([
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
      ]),
    );
    expect(verification.records.find((record) => record.outcome === "expired")).not.toHaveProperty(
      "code",
    );
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
