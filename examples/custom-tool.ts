/**
 * custom-tool: Switchyard embedded as a library. The application defines its
 * own tool (apply_discount, over OrderClient.updateOrders) and its own
 * approval policy: small discounts go through, larger ones wait for a person.
 *
 *   node --import tsx examples/custom-tool.ts                      # 15 %: asks the person
 *   node --import tsx examples/custom-tool.ts --task "Give order ORD-1042 a 5% discount because it shipped late."
 *
 * The same as `switchyard run custom-tool`.
 */
import {
  Agent,
  type ApprovalAction,
  type ApprovalContext,
  type ApprovalDecision,
  type Approver,
  defineTool,
  type OrderClient,
} from "switchyard-agents";
import { type ExampleDefinition, runIfMain } from "switchyard-agents/cli";
import { z } from "zod";

/** Discounts up to this percentage need no sign-off. */
const autoApprovedPercent = 5;

/**
 * apply_discount: records a discount on an order. The order service keeps
 * fields it does not know, so the discount is stored as `discount_percent`
 * and `discount_reason` on the order (PUT /orders).
 */
export function applyDiscountTool(orders: OrderClient) {
  return defineTool({
    name: "apply_discount",
    description:
      "Gives one order a percentage discount, with the reason shown to the customer. Returns the order id and the discount applied. If the result has error approval_refused, nothing was changed: tell the user why.",
    // The schema is the first line of defence: the model cannot ask for 80 %.
    parameters: z.object({
      customer_identifier: z.string().min(1).describe("The order's identifier, e.g. ORD-1042."),
      percent: z.number().min(1).max(50).describe("The discount, from 1 to 50 percent."),
      reason: z.string().min(3).max(200).describe("Why the customer gets it."),
    }),
    // Every call goes to the approver; the approver decides who has to say yes.
    needsApproval: true,
    // Where the call acts: named in the question, and part of what an approval binds to,
    // so a sandbox approval never lets the same call run in production.
    target: { service: "orders", environment: orders.environment },
    // The summary is our words; what the model chose goes in values, which the
    // question shows quoted, with control characters written out.
    describeAction: ({ customer_identifier, percent, reason }) => ({
      summary: `Give one order a ${percent}% discount`,
      details: [
        { label: "order", value: customer_identifier },
        { label: "reason shown to the customer", value: reason, writtenByAgent: true },
      ],
      // A discount can be changed back, unlike a deleted callback.
      irreversible: false,
    }),
    execute: async ({ customer_identifier, percent, reason }, { signal }) => {
      const result = await orders.updateOrders(
        [{ customer_identifier, discount_percent: percent, discount_reason: reason }],
        { signal },
      );
      const item = result.results[0];
      if (item?.status !== "success") {
        // Thrown errors reach the model as tool_failed, with this message.
        throw new Error(
          `The order service did not apply the discount to ${customer_identifier}: ${item?.error_message ?? "no answer for this order"}`,
        );
      }
      return { customer_identifier, discount_percent: percent, applied: true };
    },
  });
}

/**
 * The application's approval policy: apply_discount calls up to
 * `autoApprovedPercent` are approved here; everything else goes to a person.
 */
export class DiscountApprover implements Approver {
  readonly #person: Approver;

  constructor(person: Approver) {
    this.#person = person;
  }

  /** Asks the person about the actions the policy does not approve; the ticket is theirs. */
  async ask(actions: readonly ApprovalAction[], context: ApprovalContext): Promise<string> {
    const toPerson = actions.filter((action) => !approvedHere(action));
    return toPerson.length === 0 ? "" : this.#person.ask(toPerson, context);
  }

  /**
   * The policy's approvals, and the person's answers for the rest: waited
   * for, or read after the run suspended (`switchyard run --no-wait`, then
   * `switchyard resume`) from the ticket the run kept.
   */
  async read(
    ticket: string,
    actions: readonly ApprovalAction[],
    context: ApprovalContext,
  ): Promise<ApprovalDecision[]> {
    const toPerson = actions.filter((action) => !approvedHere(action));
    const answers = toPerson.length === 0 ? [] : await this.#person.read(ticket, toPerson, context);
    return actions.map((action): ApprovalDecision => {
      if (!approvedHere(action)) {
        // Fail closed: a missing answer approves nothing.
        return (
          answers[toPerson.indexOf(action)] ?? {
            outcome: "refused",
            code: "invalid_decision",
            reason: "The person's approver gave no answer, so the discount was not applied.",
          }
        );
      }
      // An approval must carry the action's fingerprint: it approves exactly
      // these arguments, once.
      return {
        outcome: "approved",
        fingerprint: action.fingerprint,
        approvedBy: `policy: discounts up to ${autoApprovedPercent}%`,
      };
    });
  }

  /** Whether the person's question is still open (a worker asks before resuming a run). */
  async peek(ticket: string, approvalIds: readonly string[], context: { signal: AbortSignal }) {
    return (await this.#person.peek?.(ticket, approvalIds, context)) ?? { pending: false };
  }
}

/** Whether the application's policy approves the action without asking anyone. */
function approvedHere(action: ApprovalAction): boolean {
  const { percent } = action.arguments as { percent?: unknown };
  return (
    action.toolName === "apply_discount" &&
    typeof percent === "number" &&
    percent <= autoApprovedPercent
  );
}

const instructions = `You handle customer-service adjustments to orders.
To give a discount, call apply_discount once with the order id, the percentage and the reason from the request.
Never change the percentage the user asked for. If the discount is refused or fails, say so and why.
Finish with one sentence saying whether the discount was applied.`;

/** The custom-tool example, as `switchyard run` and the tests run it. */
export const customTool: ExampleDefinition = {
  name: "custom-tool",
  description:
    "Library use: your own apply_discount tool, gated by your own approver (<= 5 % automatic, else a person).",
  defaultTask: "Give order ORD-1042 a 15% goodwill discount because it shipped late.",
  instructions,
  uses: ["orders", "messaging"],
  createAgent: (services) => {
    // The person is reached the same way as in the other examples:
    // services.approver is a MessagingApprover sending an interaction through
    // the messaging service to the approver's subscription link.
    return new Agent({
      model: services.model,
      tools: [applyDiscountTool(services.orders)],
      instructions,
      approver: new DiscountApprover(services.approver),
      // `switchyard run --allow-edits`: the person may change the call before approving it.
      approvalPolicy: { edits: services.allowEdits },
      logger: services.logger,
      runStore: services.runStore,
      stateKey: services.stateKey,
      auditLog: services.auditLog,
      approverDirectory: services.approverDirectory,
    });
  },
};

runIfMain(import.meta.url, customTool);
