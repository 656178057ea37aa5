/**
 * callback-cleanup, the demo: find the webhook callbacks that still point at
 * a retired host, delete them once a person approves, and report.
 *
 *   node --import tsx examples/callback-cleanup.ts              # against the simulators
 *   node --import tsx examples/callback-cleanup.ts --approve deny --json
 *
 * Without waiting for the answer, services running outside (`switchyard sim`
 * in another shell, then the export lines it prints):
 *
 *   switchyard run callback-cleanup --no-wait     # asks, saves the run, prints its id
 *   switchyard resume <run-id>                    # once the person has answered
 *
 * The same as `switchyard run callback-cleanup`.
 */
import { Agent, type OrderClient, orderTools } from "switchyard-agents";
import { type ExampleDefinition, runIfMain } from "switchyard-agents/cli";

// The model sees every tool it is given: offer only what the task needs, so a
// confused model cannot cancel orders while cleaning up callbacks.
const toolNames = ["list_callbacks", "delete_callbacks"];

const instructions = `You keep the order service's webhook callbacks tidy.
List the callbacks, pick exactly those whose URL host is the host the user names or a subdomain of it, and delete them with one delete_callbacks call.
A person is asked to approve every deletion. If the deletion is refused, say that nothing was deleted and why; do not retry.
Never delete a callback on any other host, even a similar-looking one.
Finish with a short report: how many callbacks were deleted, their URLs, and any that failed.`;

/** The callback-cleanup example, as `switchyard run` and the tests run it. */
export const callbackCleanup: ExampleDefinition = {
  name: "callback-cleanup",
  description: "Find callbacks pointing at a retired host, delete them after approval, report.",
  defaultTask:
    "Remove every callback that points at the retired host hooks.old-warehouse.example. Leave all other callbacks alone.",
  instructions,
  uses: ["orders", "messaging"],
  createAgent: (services) =>
    new Agent({
      model: services.model,
      tools: orderTools(services.orders).filter((tool) => toolNames.includes(tool.name)),
      instructions,
      // A long list is cleaned up in rounds (50 shown at a time), then checked type by type.
      maxSteps: 20,
      // delete_callbacks needs approval by default: the approver asks the person
      // through the messaging service, and only an "approve" for exactly these
      // ids lets the deletion run.
      approver: services.approver,
      approvalPolicy: {
        // `switchyard run --allow-edits`: the person may change a deletion before approving it.
        edits: services.allowEdits,
        rules: [
          // The question may offer "Approve this and up to 5 more like it": the
          // later rounds of a long cleanup (the list shows 50 at a time) run
          // without asking again, each recorded against that approval.
          {
            name: "callback deletions",
            tool: "delete_callbacks",
            decision: "ask",
            standing: { maxCalls: 5, forMs: 15 * 60_000 },
            edits: services.allowEdits,
          },
          // Whoever approved what: someone is setting these up right now.
          {
            name: "recently registered callbacks are kept",
            tool: "delete_callbacks",
            decision: "deny",
            when: (args) => registeredRecently(services.orders, args),
          },
        ],
      },
      logger: services.logger,
      // Set for `switchyard run --no-wait` and `switchyard resume`: the run is saved as it goes.
      runStore: services.runStore,
      stateKey: services.stateKey,
      auditLog: services.auditLog,
      approverDirectory: services.approverDirectory,
    }),
};

/** Whether the deletion names a callback registered within the last hour. */
async function registeredRecently(orders: OrderClient, args: unknown): Promise<boolean> {
  const ids = new Set((args as { callback_ids: string[] }).callback_ids);
  const hourAgo = Date.now() - 3_600_000;
  const callbacks = await orders.listCallbacks({ messageType: "all" });
  return callbacks.some(
    (callback) => ids.has(callback.id) && Date.parse(callback.created_at ?? "") > hourAgo,
  );
}

runIfMain(import.meta.url, callbackCleanup);
