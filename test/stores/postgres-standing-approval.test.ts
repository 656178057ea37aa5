import { expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { usePostgresStores } from "../helpers/postgres-test-database.js";

const makeStore = usePostgresStores("standing");
const stateKey = "5f0c2e9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d";

function agentWith(
  store: ReturnType<typeof makeStore>,
  steps: ConstructorParameters<typeof ScriptedModel>[0],
  approver: ScriptedApprover,
) {
  const deleted: string[][] = [];
  const tool = defineTool({
    name: "delete_callbacks",
    description: "Deletes callbacks.",
    parameters: z.object({ ids: z.array(z.string()) }),
    needsApproval: true,
    execute: ({ ids }) => {
      deleted.push(ids);
      return { deleted: ids.length };
    },
  });
  const agent = new Agent({
    model: new ScriptedModel(steps),
    tools: [tool],
    approver,
    runStore: store,
    stateKey,
    approvalPolicy: {
      rules: [
        {
          name: "deletions",
          tool: "delete_callbacks",
          decision: "ask",
          standing: { maxCalls: 1, forMs: 600_000 },
        },
      ],
    },
  });
  return { agent, deleted };
}

const deletion = (id: string) => ({
  toolCalls: [{ name: "delete_callbacks", arguments: { ids: [id] }, id: `call_${id}` }],
});

it("PostgreSQL: a standing approval read on resume covers the next call once, each use spent in the store", async () => {
  const store = makeStore();
  const suspended = await agentWith(
    store,
    [deletion("cb-1")],
    new ScriptedApprover(["pending"]),
  ).agent.run("delete", { suspendOnApproval: true });
  expect(suspended.status).toBe("suspended");

  const approver = new ScriptedApprover(["pending"], {
    checks: [
      ({ pending }) => ({
        outcome: "approved",
        fingerprint: pending.action.fingerprint,
        standing: { fingerprint: pending.action.standing?.fingerprint ?? "" },
      }),
    ],
  });
  const resumed = agentWith(store, [deletion("cb-2"), deletion("cb-3")], approver);
  const result = await resumed.agent.resume(suspended.runId!, { suspendOnApproval: true });
  // cb-1 approved, cb-2 covered (the one more call), cb-3 asked again.
  expect(resumed.deleted).toEqual([["cb-1"], ["cb-2"]]);
  expect(result.status).toBe("suspended");
  expect(approver.requests.map((request) => request.action.arguments)).toEqual([{ ids: ["cb-3"] }]);
  const stored = await store.load(suspended.runId!);
  expect(stored?.standingApprovals).toMatchObject([{ used: 1, scope: { maxCalls: 1 } }]);
  expect(stored?.finishedCalls?.at(-1)?.approval).toMatchObject({ coveredBy: { use: 1 } });
});
