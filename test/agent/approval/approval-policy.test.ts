import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalPolicy } from "../../../src/agent/approval/approval-policy.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { actionFingerprint } from "../../../src/internal/canonical-json.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { capturingLogger, toolMessages } from "../fixtures.js";

const sandbox = { service: "orders", account: "acme", environment: "sandbox" };
const production = { service: "orders", account: "acme", environment: "production" };

function deleteTool(target = sandbox, needsApproval: boolean = true) {
  const executions: unknown[] = [];
  const tool = defineTool({
    name: "delete_callbacks",
    description: "Deletes callbacks.",
    parameters: z.object({ ids: z.array(z.string()).min(1) }),
    needsApproval,
    target,
    execute: (args) => {
      executions.push(args);
      return { deleted: args.ids.length };
    },
  });
  return { tool, executions };
}

async function runPolicy(
  policy: ApprovalPolicy,
  options: {
    target?: typeof sandbox;
    approver?: ScriptedApprover;
    ids?: string[];
    needsApproval?: boolean;
  } = {},
) {
  const { tool, executions } = deleteTool(options.target, options.needsApproval);
  const approver = options.approver ?? new ScriptedApprover(["approve"]);
  const captured = capturingLogger();
  const logger = captured.logger;
  const model = new ScriptedModel([
    { toolCalls: [{ name: "delete_callbacks", arguments: { ids: options.ids ?? ["cb-1"] } }] },
    { text: "done" },
  ]);
  const agent = new Agent({ model, tools: [tool], approver, approvalPolicy: policy, logger });
  const result = await agent.run("tidy the callbacks");
  const told = toolMessages(model.requests[1]?.messages ?? [])[0]?.content ?? "";
  return {
    agent,
    result,
    executions,
    approver,
    lines: captured.lines,
    told,
    record: result.steps[0]?.toolCalls[0],
  };
}

describe("approvalPolicy: the one place that decides", () => {
  it("an allow rule runs a gated call without asking, recorded with the rule's name", async () => {
    const { executions, approver, record, lines } = await runPolicy({
      rules: [
        {
          name: "single sandbox deletion",
          tool: "delete_callbacks",
          decision: "allow",
          when: (args, target) =>
            target?.environment === "sandbox" && (args as { ids: string[] }).ids.length === 1,
        },
      ],
    });
    expect(approver.requests).toHaveLength(0);
    expect(executions).toEqual([{ ids: ["cb-1"] }]);
    expect(record).toMatchObject({
      status: "succeeded",
      approval: {
        outcome: "approved",
        rule: "single sandbox deletion",
        fingerprint: actionFingerprint("delete_callbacks", { ids: ["cb-1"] }, sandbox),
      },
    });
    expect(lines).toContainEqual(
      expect.objectContaining({
        audit: "approval",
        outcome: "approved",
        rule: "single sandbox deletion",
      }),
    );
  });

  it("a predicate that does not hold leaves the tool's default: the person is asked", async () => {
    const { executions, approver, record } = await runPolicy(
      {
        rules: [
          {
            name: "single sandbox deletion",
            decision: "allow",
            when: (args) => (args as { ids: string[] }).ids.length === 1,
          },
        ],
      },
      { ids: ["cb-1", "cb-2"] },
    );
    expect(approver.requests).toHaveLength(1);
    expect(executions).toHaveLength(1);
    expect(record?.approval).not.toHaveProperty("rule");
  });

  it("deny wins over allow, and no one is asked", async () => {
    const { executions, approver, record, told } = await runPolicy(
      {
        rules: [
          { name: "everything", decision: "allow" },
          {
            name: "no production deletions",
            tool: ["delete_callbacks"],
            decision: "deny",
            when: (_args, target) => target?.environment === "production",
          },
        ],
      },
      { target: production },
    );
    expect(approver.requests).toHaveLength(0);
    expect(executions).toEqual([]);
    expect(record).toMatchObject({
      status: "refused",
      approval: { outcome: "refused", code: "policy_denied", rule: "no production deletions" },
    });
    expect(JSON.parse(told)).toMatchObject({
      error: "approval_refused",
      code: "policy_denied",
    });
    expect(told).toContain('rule \\"no production deletions\\"');
  });

  it("an ask rule gates a tool whose default is to run without asking", async () => {
    const { executions, approver } = await runPolicy(
      { rules: [{ name: "ask about deletions", tool: "delete_callbacks", decision: "ask" }] },
      { needsApproval: false, approver: new ScriptedApprover(["deny"]) },
    );
    expect(approver.requests).toHaveLength(1);
    expect(executions).toEqual([]);
  });

  it("a deny predicate that throws denies; an allow predicate that throws does not allow", async () => {
    const throwing = () => {
      throw new Error("bug in the rule");
    };
    const denied = await runPolicy({
      rules: [{ name: "broken deny", decision: "deny", when: throwing }],
    });
    expect(denied.executions).toEqual([]);
    expect(denied.record?.approval).toMatchObject({ code: "policy_denied", rule: "broken deny" });

    const allowed = await runPolicy(
      { rules: [{ name: "broken allow", decision: "allow", when: throwing }] },
      { approver: new ScriptedApprover(["deny"]) },
    );
    expect(allowed.approver.requests).toHaveLength(1);
    expect(allowed.executions).toEqual([]);
  });

  it("the predicate cannot change the arguments that run", async () => {
    const { executions } = await runPolicy({
      rules: [
        {
          name: "mutating rule",
          decision: "allow",
          when: (args) => {
            try {
              (args as { ids: string[] }).ids.push("cb-other");
            } catch {
              // frozen: what runs is what the rule read
            }
            return true;
          },
        },
      ],
    });
    expect(executions).toEqual([{ ids: ["cb-1"] }]);
  });

  it("shadow mode asks as before and records what the rules would have decided", async () => {
    const { executions, approver, record, lines } = await runPolicy(
      { shadow: true, rules: [{ name: "would deny", decision: "deny" }] },
      { approver: new ScriptedApprover(["approve"]) },
    );
    expect(approver.requests).toHaveLength(1);
    expect(executions).toHaveLength(1);
    expect(record?.approval).toMatchObject({
      outcome: "approved",
      policy: { decision: "deny", rule: "would deny" },
    });
    expect(record?.approval).not.toHaveProperty("rule");
    expect(lines.some((line) => line.audit === "approval")).toBe(true);
  });

  it("shadow mode records a verdict about a call that ran by default without asking", async () => {
    const { executions, approver, lines } = await runPolicy(
      { shadow: true, rules: [{ name: "would ask", decision: "ask" }] },
      { needsApproval: false },
    );
    expect(approver.requests).toHaveLength(0);
    expect(executions).toHaveLength(1);
    expect(lines).toContainEqual(
      expect.objectContaining({
        audit: "approval",
        outcome: "not_asked",
        policy: { decision: "ask", rule: "would ask" },
      }),
    );
  });

  it("ungatedTools and the warning follow the policy", async () => {
    const { tool } = deleteTool();
    const captured = capturingLogger();
    const agent = new Agent({
      model: new ScriptedModel([]),
      tools: [tool],
      logger: captured.logger,
      approvalPolicy: {
        rules: [{ name: "trust deletions", tool: "delete_callbacks", decision: "allow" }],
      },
    });
    expect(agent.ungatedTools).toEqual(["delete_callbacks"]);
    expect(captured.lines).toContainEqual(
      expect.objectContaining({ level: 40, tools: ["delete_callbacks"] }),
    );
    const shadowed = new Agent({
      model: new ScriptedModel([]),
      tools: [tool],
      approvalPolicy: {
        shadow: true,
        rules: [{ name: "trust deletions", tool: "delete_callbacks", decision: "allow" }],
      },
    });
    expect(shadowed.ungatedTools).toEqual([]);
  });

  it("a bad policy is a ConfigurationError naming each problem", () => {
    const { tool } = deleteTool();
    const build = () =>
      new Agent({
        model: new ScriptedModel([]),
        tools: [tool],
        approvalPolicy: {
          rules: [
            { name: "", decision: "allow" },
            // @ts-expect-error: a decision the policy does not know
            { name: "a", decision: "maybe" },
            { name: "a", tool: "delete_orders", decision: "deny" },
          ],
        },
      });
    expect(build).toThrow(ConfigurationError);
    expect(build).toThrow(/rules\[0\]\.name must be a non-empty string/);
    expect(build).toThrow(/rules\[1\]\.decision must be "allow", "deny" or "ask"/);
    expect(build).toThrow(/rules\[2\]\.name "a" is used by another rule/);
    expect(build).toThrow(
      /rules\[2\]\.tool names "delete_orders", which is not one of the agent's tools/,
    );
  });
});
