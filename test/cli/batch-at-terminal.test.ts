import {
  Agent,
  MessagingApprover,
  MessagingClient,
  OrderClient,
  orderTools,
} from "switchyard-agents";
import { ScriptedModel } from "switchyard-agents/testing";
import { describe, expect, it } from "vitest";
import { spawnInTerminal } from "./spawn-in-terminal.js";

const switchyard = "node --import tsx src/cli/main.ts";

/** What `switchyard sim` printed after `export `, by variable. */
function exportedVariables(output: string): Record<string, string> {
  return Object.fromEntries(
    [...output.matchAll(/^export (\w+)=(\S+)$/gm)].map((match) => [match[1]!, match[2]!]),
  );
}

describe("one question for parallel calls, answered at the terminal of switchyard sim", () => {
  it("runs only the actions whose numbers the person typed (1,3)", async () => {
    const session = spawnInTerminal(`${switchyard} sim`);
    await session.waitFor("export SWITCHYARD_APPROVER_LINK=");
    const variables = exportedVariables(session.output());
    const orders = new OrderClient({
      baseUrl: variables.SWITCHYARD_ORDERS_URL!,
      token: variables.SWITCHYARD_ORDERS_TOKEN!,
    });
    const before = (await orders.listCallbacks()).map((callback) => callback.id);
    const ids = before.slice(0, 3);
    const agent = new Agent({
      model: new ScriptedModel([
        {
          toolCalls: ids.map((id) => ({
            name: "delete_callbacks",
            arguments: { callback_ids: [id] },
          })),
        },
        { text: "Deleted what you approved." },
      ]),
      tools: orderTools(orders),
      approver: new MessagingApprover({
        client: new MessagingClient({
          baseUrl: variables.SWITCHYARD_MESSAGING_URL!,
          token: variables.SWITCHYARD_MESSAGING_TOKEN!,
        }),
        subscriptionLinkId: variables.SWITCHYARD_APPROVER_LINK!,
        pollIntervalMs: 20,
        maxPollIntervalMs: 50,
      }),
    });
    const running = agent.run("delete these three callbacks");

    await session.waitFor("Type all to approve every action");
    const asked = session.output();
    for (const number of [1, 2, 3]) expect(asked).toContain(`[${number}] Delete 1 callback`);
    session.press("1,3: keep the second\r");
    const result = await running;
    const after = (await orders.listCallbacks()).map((callback) => callback.id);
    session.press("\x03");
    expect(await session.exited).toBe(0);

    expect(result.steps[0]?.toolCalls.map((call) => call.status)).toEqual([
      "succeeded",
      "refused",
      "succeeded",
    ]);
    expect(after).toEqual(before.filter((id) => id !== ids[0] && id !== ids[2]));
  });
});
