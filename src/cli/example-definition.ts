import type { Agent } from "../agent/agent.js";
import type { ApprovalAuditLog } from "../agent/approval/approval-audit-record.js";
import type { ApproverDirectory } from "../agent/approval/approver-directory.js";
import type { Approver } from "../agent/approver.js";
import type { RunStore } from "../agent/durable/run-store.js";
import type { Model } from "../agent/model.js";
import type { DocsClient } from "../clients/docs/docs-client.js";
import type { MessagingClient } from "../clients/messaging/messaging-client.js";
import type { OrderClient } from "../clients/orders/order-client.js";
import type { Logger } from "../internal/logger.js";

/** The services an example may use besides the reasoner, as `uses` names them. */
export type ExampleServiceName = "orders" | "docs" | "messaging";

/** The services an example's tools and approver call: its `uses`, or all of them. */
export function servicesUsedBy(example: ExampleDefinition): readonly ExampleServiceName[] {
  return example.uses ?? ["orders", "docs", "messaging"];
}

/**
 * What an example's `createAgent` receives: a client per service (each bound
 * to its simulator or to the address set in the environment), the approver
 * that asks the person, and a logger.
 */
export interface ExampleServices {
  /** The reasoning service: a `ReasonerClient`. */
  model: Model;
  orders: OrderClient;
  docs: DocsClient;
  messaging: MessagingClient;
  /**
   * Asks the person before a destructive step: a `MessagingApprover` sending
   * interactions to `approverLinkId` through `messaging`.
   */
  approver: Approver;
  /** The approver's active subscription link, for examples that build their own approver. */
  approverLinkId: string;
  /**
   * `switchyard run --allow-edits`: the person may change a call before
   * approving it. Give it to the agent's policy (`approvalPolicy: { edits:
   * services.allowEdits }`), which says what each question offers.
   */
  allowEdits: boolean;
  /** Silent unless `SWITCHYARD_LOG_LEVEL` is set; give it to the agent for audit lines. */
  logger: Logger;
  /**
   * Where the run is saved, for `switchyard run --no-wait` and `switchyard
   * resume`; undefined for an ordinary run. Give it to the agent
   * (`runStore: services.runStore`): the agent then records an approved
   * destructive call before it runs, so a crash never runs it twice, and
   * two processes never resume the run at once.
   */
  runStore?: RunStore | undefined;
  /**
   * The key sealing saved runs, from `SWITCHYARD_STATE_KEY`; give it to the
   * agent (`stateKey: services.stateKey`) so a run edited or put back in the
   * state directory is refused on resume.
   */
  stateKey?: string | undefined;
  /**
   * Where every approval decision is appended (`SWITCHYARD_AUDIT_LOG`, else
   * `audit.jsonl` in the state directory): give it to the agent
   * (`auditLog: services.auditLog`); `switchyard audit` reads it.
   */
  auditLog?: ApprovalAuditLog | undefined;
  /**
   * Who may approve (`--approver-directory`, `SWITCHYARD_APPROVER_DIRECTORY`):
   * give it to the agent (`approverDirectory: services.approverDirectory`),
   * so an answer counts only from a person the directory and the rule
   * allow. Undefined without one: the approver's answers count as they are.
   */
  approverDirectory?: ApproverDirectory | undefined;
}

/**
 * An example agent the `switchyard` command and the tests can run: what it
 * is, the task it runs when none is given, and how to build its agent.
 *
 * @example
 * export const orderReport: ExampleDefinition = {
 *   name: "order-report",
 *   description: "Read-only: page through all orders and summarise them.",
 *   defaultTask: "Summarise all orders by status.",
 *   instructions: "You report on orders. Never change anything.",
 *   uses: ["orders"],
 *   createAgent: (services) =>
 *     new Agent({
 *       model: services.model,
 *       tools: [...],
 *       instructions: orderReport.instructions,
 *       runStore: services.runStore,
 *     }),
 * };
 */
export interface ExampleDefinition {
  /** Lower-case words joined by `-`; also the reasoner simulator's scenario name. */
  name: string;
  /** One line, shown by `switchyard examples`. */
  description: string;
  /** The task given to the agent when `--task` is not. */
  defaultTask: string;
  /** The agent's system instructions. */
  instructions: string;
  /**
   * The services its tools call. Only these are checked before the run when
   * they are real (set in the environment). @default all of them
   */
  uses?: readonly ExampleServiceName[];
  /**
   * Builds the agent from the services; called once per run, and once per
   * `switchyard resume`, which must get the same tools and instructions.
   * Pass `services.runStore` on to the agent.
   */
  createAgent(services: ExampleServices): Agent;
}
