import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalAuditRecord } from "../../../src/agent/approval/approval-audit-record.js";
import type { ApprovalPolicy, ApprovalRule } from "../../../src/agent/approval/approval-policy.js";
import { standingScopeFingerprint } from "../../../src/agent/approval/standing-approval.js";
import type { ApprovalAction, ApprovalDecision } from "../../../src/agent/approver.js";
import { RunRolledBackError } from "../../../src/agent/durable/durable-errors.js";
import type { RunState } from "../../../src/agent/durable/run-state.js";
import type { ToolCallRecord } from "../../../src/agent/run-result.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { useTemporaryDirectories } from "../durable/durable-helpers.js";

const sandbox = { service: "orders", account: "acme", environment: "sandbox" };
const stateKey = "5f0c2e9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d";
const makeDirectory = useTemporaryDirectories();

/** Deletes callbacks on one host; every execution is recorded. */
function deleteTool() {
  const executions: Array<{ host: string; ids: string[] }> = [];
  const tool = defineTool({
    name: "delete_callbacks",
    description: "Deletes callbacks on one host.",
    parameters: z.object({ host: z.string(), ids: z.array(z.string()).min(1) }),
    needsApproval: true,
    target: sandbox,
    execute: (args) => {
      executions.push(args);
      return { deleted: args.ids.length };
    },
  });
  return { tool, executions };
}

const standingRule: ApprovalRule = {
  name: "callback deletions",
  tool: "delete_callbacks",
  decision: "ask",
  standing: {
    maxCalls: 2,
    forMs: 600_000,
    sameValue: { label: "callback host", of: (args) => (args as { host: string }).host },
  },
};

const deletion = (host: string, ids: string[], id?: string) => ({
  name: "delete_callbacks",
  arguments: { host, ids },
  ...(id ? { id } : {}),
});

/** Approves with the standing approval the question offered. */
const approveStanding = (action: ApprovalAction): ApprovalDecision => ({
  outcome: "approved",
  fingerprint: action.fingerprint,
  interactionId: `standing-${action.toolCallId}`,
  ...(action.standing ? { standing: { fingerprint: action.standing.fingerprint } } : {}),
});

/** Runs one call per step, then "done". */
async function runSteps(
  calls: Array<ReturnType<typeof deletion>>,
  answers: ConstructorParameters<typeof ScriptedApprover>[0],
  policy: ApprovalPolicy = { rules: [standingRule] },
) {
  const { tool, executions } = deleteTool();
  const approver = new ScriptedApprover(answers);
  const audit: ApprovalAuditRecord[] = [];
  const model = new ScriptedModel([
    ...calls.map((call) => ({ toolCalls: [call] })),
    { text: "done" },
  ]);
  const agent = new Agent({
    model,
    tools: [tool],
    approver,
    approvalPolicy: policy,
    onApprovalDecided: (record) => {
      audit.push(record);
    },
  });
  const result = await agent.run("tidy the callbacks");
  const records = result.steps.flatMap((step) => step.toolCalls) as ToolCallRecord[];
  return { result, records, executions, approver, audit };
}

describe("standing approvals", () => {
  it("offers a stated scope, then runs the next calls like it without asking, each recorded against the approval", async () => {
    const { records, executions, approver, audit } = await runSteps(
      [
        deletion("hooks.a.example", ["cb-1"]),
        deletion("hooks.a.example", ["cb-2"]),
        deletion("hooks.a.example", ["cb-3"]),
        deletion("hooks.a.example", ["cb-4"]),
      ],
      [approveStanding, "deny"],
    );
    const offered = approver.requests[0]?.action.standing;
    expect(offered).toMatchObject({
      rule: "callback deletions",
      toolName: "delete_callbacks",
      target: sandbox,
      sameValue: { label: "callback host", value: "hooks.a.example" },
      maxCalls: 2,
    });
    expect(offered?.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Asked twice: the first call, and the fourth (the scope covers two more).
    expect(approver.requests.map((request) => request.action.arguments)).toEqual([
      { host: "hooks.a.example", ids: ["cb-1"] },
      { host: "hooks.a.example", ids: ["cb-4"] },
    ]);
    expect(executions.map((args) => args.ids[0])).toEqual(["cb-1", "cb-2", "cb-3"]);
    const grantedBy =
      records[0]?.approval?.outcome === "approved" && records[0].approval.approvalId;
    expect(records[0]?.approval).toMatchObject({ outcome: "approved", standing: offered });
    expect(records[1]?.approval).toMatchObject({
      outcome: "approved",
      coveredBy: { approvalId: grantedBy, use: 1, maxCalls: 2, scope: offered?.fingerprint },
    });
    // Each use is an approval of its own: its own id, spent once.
    const ids = records
      .slice(0, 3)
      .map((record) => record.approval?.outcome === "approved" && record.approval.approvalId);
    expect(new Set(ids).size).toBe(3);
    expect(records[2]?.approval).toMatchObject({ coveredBy: { use: 2 } });
    expect(records[3]).toMatchObject({ status: "refused", approval: { code: "denied" } });
    expect(audit.map((record) => [record.decidedBy, record.outcome])).toEqual([
      ["person", "approved"],
      ["standing", "approved"],
      ["standing", "approved"],
      ["person", "refused"],
    ]);
    expect(audit[0]?.standing?.fingerprint).toBe(offered?.fingerprint);
    expect(audit[2]?.coveredBy).toMatchObject({ approvalId: grantedBy, use: 2 });
  });

  it("covers only calls with the same constrained value (another host is asked about)", async () => {
    const { approver, executions } = await runSteps(
      [deletion("hooks.a.example", ["cb-1"]), deletion("hooks.b.example", ["cb-2"])],
      [approveStanding, "approve"],
    );
    expect(approver.requests).toHaveLength(2);
    expect(approver.requests[1]?.action.standing?.sameValue?.value).toBe("hooks.b.example");
    expect(executions).toHaveLength(2);
  });

  it("a plain approval grants nothing more: the next call is asked about", async () => {
    const { approver } = await runSteps(
      [deletion("hooks.a.example", ["cb-1"]), deletion("hooks.a.example", ["cb-2"])],
      ["approve", "approve"],
    );
    expect(approver.requests).toHaveLength(2);
  });

  it("never overrides a later deny rule", async () => {
    const { records, executions, approver } = await runSteps(
      [deletion("hooks.a.example", ["cb-1"]), deletion("hooks.a.example", ["cb-keep"])],
      [approveStanding],
      {
        rules: [
          standingRule,
          {
            name: "keep the kept",
            tool: "delete_callbacks",
            decision: "deny",
            when: (args) => (args as { ids: string[] }).ids.includes("cb-keep"),
          },
        ],
      },
    );
    expect(approver.requests).toHaveLength(1);
    expect(executions.map((args) => args.ids)).toEqual([["cb-1"]]);
    expect(records[1]).toMatchObject({
      status: "refused",
      approval: { code: "policy_denied", rule: "keep the kept" },
    });
  });

  it("never overrides a person's later denial in the run: the scope covers nothing more", async () => {
    const { records, executions, approver } = await runSteps(
      [
        deletion("hooks.a.example", ["cb-1"]),
        // Another host: asked, and the person denies it.
        deletion("hooks.b.example", ["cb-2"]),
        // Inside the first scope, but after the denial: asked again, denied again.
        deletion("hooks.a.example", ["cb-3"]),
      ],
      [approveStanding, "deny", "deny"],
    );
    expect(approver.requests).toHaveLength(3);
    expect(executions.map((args) => args.ids)).toEqual([["cb-1"]]);
    expect(records[2]).toMatchObject({ status: "refused", approval: { code: "denied" } });
  });

  it("never runs an action a person denied earlier in the run, even inside a scope given later", async () => {
    const { executions, approver } = await runSteps(
      [
        deletion("hooks.a.example", ["cb-1"]),
        deletion("hooks.a.example", ["cb-2"]),
        // The very action denied first: asked again, not covered.
        deletion("hooks.a.example", ["cb-1"]),
      ],
      ["deny", approveStanding, "deny"],
    );
    expect(approver.requests).toHaveLength(3);
    expect(executions.map((args) => args.ids)).toEqual([["cb-2"]]);
  });

  it("covers parallel calls one use each, never more than the scope allows", async () => {
    const { tool, executions } = deleteTool();
    const approver = new ScriptedApprover([approveStanding, "deny"]);
    const model = new ScriptedModel([
      { toolCalls: [deletion("hooks.a.example", ["cb-0"])] },
      {
        toolCalls: [1, 2, 3].map((n) => deletion("hooks.a.example", [`cb-${n}`], `call_${n}`)),
      },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools: [tool],
      approver,
      approvalPolicy: { rules: [standingRule] },
      toolConcurrency: 3,
    });
    const result = await agent.run("tidy");
    const uses = result.steps[1]?.toolCalls.map((record) =>
      record.approval?.outcome === "approved" ? record.approval.coveredBy?.use : "asked",
    );
    expect([...(uses ?? [])].sort()).toEqual([1, 2, "asked"]);
    expect(executions).toHaveLength(3);
    expect(approver.requests).toHaveLength(2);
  });

  it("refuses an answer whose standing scope is not the one offered, or one when none was offered", async () => {
    const widened = (action: ApprovalAction): ApprovalDecision => ({
      outcome: "approved",
      fingerprint: action.fingerprint,
      interactionId: "i-1",
      standing: { fingerprint: `sha256:${"0".repeat(64)}` },
    });
    const first = await runSteps([deletion("hooks.a.example", ["cb-1"])], [widened]);
    expect(first.records[0]).toMatchObject({
      status: "refused",
      approval: { code: "fingerprint_mismatch" },
    });
    const unoffered = await runSteps([deletion("hooks.a.example", ["cb-1"])], [widened], {
      rules: [],
    });
    expect(unoffered.approver.requests[0]?.action.standing).toBeUndefined();
    expect(unoffered.records[0]).toMatchObject({
      status: "refused",
      approval: { code: "fingerprint_mismatch" },
    });
    expect(first.executions).toEqual([]);
    expect(unoffered.executions).toEqual([]);
  });

  it("offers nothing for a call whose constrained value cannot be read, and is never offered with two approvers", async () => {
    const noValue = await runSteps([deletion("", ["cb-1"])], ["approve"]);
    expect(noValue.approver.requests[0]?.action.standing).toBeUndefined();
    const twoPeople = await runSteps([deletion("hooks.a.example", ["cb-1"])], ["deny"], {
      rules: [{ ...standingRule, required: 2 }],
    });
    expect(twoPeople.approver.requests[0]?.action).toMatchObject({ requiredApprovers: 2 });
    expect(twoPeople.approver.requests[0]?.action.standing).toBeUndefined();
  });

  it("rejects a malformed offer, naming the field", () => {
    const { tool } = deleteTool();
    expect(
      () =>
        new Agent({
          model: new ScriptedModel([]),
          tools: [tool],
          approvalPolicy: {
            rules: [
              { ...standingRule, standing: { maxCalls: 0, forMs: 1000 } },
              { name: "allowing", decision: "allow", required: 2 },
            ],
          },
        }),
    ).toThrow(ConfigurationError);
    try {
      new Agent({
        model: new ScriptedModel([]),
        tools: [tool],
        approvalPolicy: { rules: [{ ...standingRule, standing: { maxCalls: 0, forMs: 1000 } }] },
      });
    } catch (error) {
      expect(String((error as Error).message)).toMatch(/rules\[0\]\.standing\.maxCalls/);
    }
  });
});

describe("standing approvals in a saved run", () => {
  function durableAgent(
    directory: string,
    answers: ConstructorParameters<typeof ScriptedApprover>[0],
    steps: ConstructorParameters<typeof ScriptedModel>[0],
    checks: ConstructorParameters<typeof ScriptedApprover>[1] = {},
    toolConcurrency = 10,
  ) {
    const { tool, executions } = deleteTool();
    const approver = new ScriptedApprover(answers, checks);
    const agent = new Agent({
      model: new ScriptedModel(steps),
      tools: [tool],
      approver,
      approvalPolicy: { rules: [standingRule] },
      runStore: new FileRunStore({ directory }),
      stateKey,
      toolConcurrency,
    });
    return { agent, executions, approver };
  }

  it("survives suspend and resume: the scope stated is the one read, kept sealed, and it covers later calls", async () => {
    const directory = await makeDirectory();
    const first = durableAgent(
      directory,
      ["pending"],
      [{ toolCalls: [deletion("hooks.a.example", ["cb-1"])] }],
    );
    const suspended = await first.agent.run("tidy", { suspendOnApproval: true });
    expect(suspended.status).toBe("suspended");
    const offered = first.approver.requests[0]?.action.standing;
    const file = new FileRunStore({ directory }).pathOf(suspended.runId!);
    const saved = JSON.parse(await readFile(file, "utf8")) as RunState;
    expect(saved.pendingCalls[0]?.standing).toEqual(offered);

    const resumed = durableAgent(
      directory,
      [],
      [{ toolCalls: [deletion("hooks.a.example", ["cb-2"], "call_later")] }, { text: "done" }],
      {
        checks: [
          ({ pending }) => ({
            outcome: "approved",
            fingerprint: pending.action.fingerprint,
            standing: { fingerprint: pending.action.standing?.fingerprint ?? "" },
          }),
        ],
      },
    );
    const result = await resumed.agent.resume(suspended.runId!);
    expect(result.status).toBe("completed");
    // The resumed check read the answer against the scope the question stated.
    expect(resumed.approver.checkRequests[0]?.pending.action.standing).toEqual(offered);
    expect(resumed.executions.map((args) => args.ids)).toEqual([["cb-1"], ["cb-2"]]);
    expect(resumed.approver.requests).toHaveLength(0);
    const state = JSON.parse(await readFile(file, "utf8")) as RunState;
    expect(state.standingApprovals).toMatchObject([{ scope: offered, used: 1 }]);
    expect(state.finishedCalls?.at(-1)?.approval).toMatchObject({ coveredBy: { use: 1 } });
  });

  it("a question already out is decided by its answer: a denial read on resume is never covered by a scope granted beside it", async () => {
    const directory = await makeDirectory();
    const first = durableAgent(
      directory,
      ["pending", "pending"],
      [
        {
          toolCalls: [
            deletion("hooks.a.example", ["cb-1"], "call_a"),
            deletion("hooks.a.example", ["cb-2"], "call_b"),
          ],
        },
      ],
    );
    const suspended = await first.agent.run("tidy", { suspendOnApproval: true });
    expect(suspended.status).toBe("suspended");
    const resumed = durableAgent(
      directory,
      [],
      [{ text: "done" }],
      {
        checks: [
          ({ pending }) =>
            pending.action.arguments &&
            (pending.action.arguments as { ids: string[] }).ids[0] === "cb-1"
              ? {
                  outcome: "approved",
                  fingerprint: pending.action.fingerprint,
                  standing: { fingerprint: pending.action.standing?.fingerprint ?? "" },
                }
              : {
                  outcome: "refused",
                  code: "denied",
                  reason: "no",
                },
          "deny",
        ],
      },
      // One call after the other: the first grants its scope before the second reads its answer.
      1,
    );
    const result = await resumed.agent.resume(suspended.runId!);
    expect(resumed.executions.map((args) => args.ids)).toEqual([["cb-1"]]);
    expect(result.steps[0]?.toolCalls.find((call) => call.toolCallId === "call_b")).toMatchObject({
      status: "refused",
      approval: { code: "denied" },
    });
  });

  it("a copy of the state cannot widen it: an edited scope is refused, sealed or not", async () => {
    const directory = await makeDirectory();
    const granting = durableAgent(
      directory,
      [approveStanding, "pending"],
      [
        { toolCalls: [deletion("hooks.a.example", ["cb-1"])] },
        { toolCalls: [deletion("hooks.b.example", ["cb-9"])] },
      ],
    );
    const suspended = await granting.agent.run("tidy", { suspendOnApproval: true });
    expect(suspended.status).toBe("suspended");
    const file = new FileRunStore({ directory }).pathOf(suspended.runId!);
    const original = await readFile(file, "utf8");
    const state = JSON.parse(original) as RunState;
    expect(state.standingApprovals).toMatchObject([{ used: 0, scope: { maxCalls: 2 } }]);

    // Widened by hand: more calls, and its fingerprint left as it was.
    const widened = structuredClone(state);
    widened.standingApprovals![0]!.scope.maxCalls = 50;
    await writeFile(file, JSON.stringify(widened));
    const reader = durableAgent(directory, [], [{ text: "done" }], { checks: ["deny"] });
    await expect(reader.agent.resume(suspended.runId!)).rejects.toThrow(/standingApprovals\[0\]/);
    // Its fingerprint recomputed too: the seal no longer matches.
    widened.standingApprovals![0]!.scope.fingerprint = standingScopeFingerprint(
      widened.standingApprovals![0]!.scope,
    );
    await writeFile(file, JSON.stringify(widened));
    await expect(reader.agent.resume(suspended.runId!)).rejects.toThrow(/seal does not match/);
    expect(reader.executions).toEqual([]);
  });

  it("an older copy of a state without a store spends each use once: its agent refuses it", async () => {
    // Without a store the agent's own memory spends each use of the scope once,
    // and tells a sealed copy of a state it moved on from (its approval spent).
    const { tool, executions } = deleteTool();
    const approver = new ScriptedApprover([approveStanding, "pending"], {
      checks: ["approve", "approve"],
    });
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [deletion("hooks.a.example", ["cb-1"], "call_1")] },
        { toolCalls: [deletion("hooks.b.example", ["cb-9"], "call_9")] },
        { toolCalls: [deletion("hooks.a.example", ["cb-2"], "call_2")] },
        { text: "done" },
        { toolCalls: [deletion("hooks.a.example", ["cb-2"], "call_2_again")] },
        { text: "done" },
      ]),
      tools: [tool],
      approver,
      approvalPolicy: { rules: [standingRule] },
      stateKey,
    });
    const suspended = await agent.run("tidy", { suspendOnApproval: true });
    expect(suspended.status).toBe("suspended");
    const copy = structuredClone(suspended.state!);
    expect((await agent.resume(suspended.state!)).status).toBe("completed");
    await expect(agent.resume(copy)).rejects.toBeInstanceOf(RunRolledBackError);
    expect(executions.map((args) => args.ids)).toEqual([["cb-1"], ["cb-9"], ["cb-2"]]);
  });
});

describe("two approvers", () => {
  const twoPeople: ApprovalPolicy = {
    rules: [{ name: "two people", tool: "delete_callbacks", decision: "ask", required: 2 }],
  };
  const approvedBy =
    (...links: string[]) =>
    (action: ApprovalAction): ApprovalDecision => ({
      outcome: "approved",
      fingerprint: action.fingerprint,
      interactionId: "i-1",
      approvers: links.map((approverLink) => ({ approverLink })),
    });

  it("runs only with two distinct approver links, and records both", async () => {
    const { records, executions, audit } = await runSteps(
      [deletion("hooks.a.example", ["cb-1"])],
      [approvedBy("sl_a", "sl_b")],
      twoPeople,
    );
    expect(executions).toHaveLength(1);
    expect(records[0]?.approval).toMatchObject({ approvers: ["sl_a", "sl_b"] });
    expect(audit[0]?.approvers).toEqual(["sl_a", "sl_b"]);
  });

  it("refuses one approver, or the same link counted twice (not_enough_approvers)", async () => {
    for (const answer of [approvedBy("sl_a"), approvedBy("sl_a", "sl_a"), "approve" as const]) {
      const { records, executions } = await runSteps(
        [deletion("hooks.a.example", ["cb-1"])],
        [answer],
        twoPeople,
      );
      expect(executions).toEqual([]);
      expect(records[0]).toMatchObject({
        status: "refused",
        approval: { code: "not_enough_approvers" },
      });
    }
  });
});
