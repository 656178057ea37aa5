import type {
  ApprovalAction,
  ApprovalContext,
  ApprovalDecision,
  Approver,
} from "../../src/agent/approver.js";

/**
 * An approver that decides each action with `decide` as it is read (its
 * ticket names nothing): for tests about what the gate does with a
 * decision, not about how a channel asks.
 */
export function decidingApprover(
  decide: (action: ApprovalAction, context: ApprovalContext) => unknown,
): Approver {
  return {
    ask: async () => "deciding-approver",
    read: async (_ticket, actions, context) =>
      (await Promise.all(actions.map((action) => decide(action, context)))) as ApprovalDecision[],
  };
}

/**
 * One action through an approver's verbs as the agent uses them: `ask`,
 * then `read` of the ticket it gave. The ticket is returned for a later
 * `read` (a resumed run) or `peek`.
 */
export async function askOne(
  approver: Approver,
  action: ApprovalAction,
  context: ApprovalContext,
): Promise<{ ticket: string; decision: ApprovalDecision }> {
  const ticket = await approver.ask([action], context);
  const [decision] = await approver.read(ticket, [action], context);
  return { ticket, decision: decision as ApprovalDecision };
}

/** A later read of one action's answer by its ticket (a resumed run's). */
export async function readOne(
  approver: Approver,
  ticket: string,
  action: ApprovalAction,
  context: ApprovalContext,
): Promise<ApprovalDecision> {
  const [decision] = await approver.read(ticket, [action], context);
  return decision as ApprovalDecision;
}
