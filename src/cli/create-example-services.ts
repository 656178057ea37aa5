import type { ApprovalAuditLog } from "../agent/approval/approval-audit-record.js";
import type { ApproverDirectory } from "../agent/approval/approver-directory.js";
import type { RunStore } from "../agent/durable/run-store.js";
import { MessagingApprover } from "../approvers/messaging/messaging-approver.js";
import { DocsClient } from "../clients/docs/docs-client.js";
import { MessagingClient } from "../clients/messaging/messaging-client.js";
import { OrderClient } from "../clients/orders/order-client.js";
import { ReasonerClient } from "../clients/reasoner/reasoner-client.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { type Logger, silentLogger } from "../internal/logger.js";
import type { ExampleServices } from "./example-definition.js";
import type { ServiceName } from "./read-service-settings.js";

/** Where each service is and what it needs to be called. */
export interface ServiceEndpoints {
  reasoner: { url: string; apiKey: string; model?: string | undefined };
  orders: { url: string; token: string };
  docs: { url: string; token: string };
  messaging: { url: string; token?: string | undefined; approverLinkId: string };
}

/** Options of {@link createExampleServices}. */
export interface CreateExampleServicesOptions {
  /** Given to every client and to the examples. @default silent */
  logger?: Logger | undefined;
  /** How long the approver waits for the person's answer. @default 600000 (10 minutes) */
  approvalTimeoutMs?: number | undefined;
  /**
   * Handed to the examples as `services.allowEdits`: their policy lets the
   * person change a call before approving it. @default false
   */
  allowEdits?: boolean | undefined;
  /** Handed to the examples as `services.runStore`, for durable runs. @default none */
  runStore?: RunStore | undefined;
  /** Handed to the examples as `services.stateKey`. @default none */
  stateKey?: string | undefined;
  /** Handed to the examples as `services.auditLog`. @default none */
  auditLog?: ApprovalAuditLog | undefined;
  /** Handed to the examples as `services.approverDirectory`. @default none */
  approverDirectory?: ApproverDirectory | undefined;
  /** Names a service in configuration problems. @default "<name> service" */
  describeService?: ((service: ServiceName) => string) | undefined;
}

/**
 * Builds the clients and the approver an example needs from the services'
 * addresses: no request is sent. Bad addresses or tokens throw one
 * `ConfigurationError` listing every problem, each naming its service.
 *
 * @example
 * const simulators = await startSimulators({ reasoner: { scenario: "order-report" } });
 * const services = createExampleServices(simulatorEndpoints(simulators));
 * const result = await orderReport.createAgent(services).run(orderReport.defaultTask);
 */
export function createExampleServices(
  endpoints: ServiceEndpoints,
  options: CreateExampleServicesOptions = {},
): ExampleServices {
  const logger = options.logger ?? silentLogger();
  const describe = options.describeService ?? ((service: ServiceName) => `${service} service`);
  const problems: string[] = [];
  const build = <Client>(service: ServiceName, create: () => Client): Client | undefined => {
    try {
      return create();
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      problems.push(...error.problems.map((problem) => `${describe(service)}: ${problem}`));
      return undefined;
    }
  };
  const { reasoner, orders, docs, messaging } = endpoints;
  const model = build(
    "reasoner",
    () =>
      new ReasonerClient({
        url: reasoner.url,
        apiKey: reasoner.apiKey,
        model: reasoner.model,
        logger,
      }),
  );
  const orderClient = build(
    "orders",
    () => new OrderClient({ baseUrl: orders.url, token: orders.token, logger }),
  );
  const docsClient = build(
    "docs",
    () => new DocsClient({ baseUrl: docs.url, token: docs.token, logger }),
  );
  const messagingClient = build(
    "messaging",
    () => new MessagingClient({ baseUrl: messaging.url, token: messaging.token, logger }),
  );
  const approver =
    messagingClient &&
    build(
      "messaging",
      () =>
        new MessagingApprover({
          client: messagingClient,
          subscriptionLinkId: messaging.approverLinkId,
          timeoutMs: options.approvalTimeoutMs,
          // A person at a terminal answers in seconds; notice it within one.
          maxPollIntervalMs: 1_000,
          logger,
        }),
    );
  if (
    problems.length > 0 ||
    !model ||
    !orderClient ||
    !docsClient ||
    !messagingClient ||
    !approver
  ) {
    throw new ConfigurationError(problems);
  }
  return {
    model,
    orders: orderClient,
    docs: docsClient,
    messaging: messagingClient,
    approver,
    approverLinkId: messaging.approverLinkId,
    allowEdits: options.allowEdits === true,
    logger,
    ...(options.runStore ? { runStore: options.runStore } : {}),
    ...(options.stateKey ? { stateKey: options.stateKey } : {}),
    ...(options.auditLog ? { auditLog: options.auditLog } : {}),
    ...(options.approverDirectory ? { approverDirectory: options.approverDirectory } : {}),
  };
}
