import type { ApprovalAuditLog } from "../agent/approval/approval-audit-record.js";
import type { ApproverDirectory } from "../agent/approval/approver-directory.js";
import type { RunStore } from "../agent/durable/run-store.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import type { Logger } from "../internal/logger.js";
import { startDocsSimulator } from "../simulators/docs/docs-simulator.js";
import type { AnswerMode } from "../simulators/messaging/answer-mode.js";
import { startMessagingSimulator } from "../simulators/messaging/messaging-simulator.js";
import { startOrdersSimulator } from "../simulators/orders/orders-simulator.js";
import type { ReasonerScenarioName } from "../simulators/reasoner/reasoner-scenarios.js";
import type { ScenarioFunction } from "../simulators/reasoner/scripted-answer.js";
import { startReasonerSimulator } from "../simulators/reasoner/start-reasoner-simulator.js";
import { usageError } from "./command-error.js";
import { createExampleServices, type ServiceEndpoints } from "./create-example-services.js";
import type { ExampleServices } from "./example-definition.js";
import { displayUrl } from "./format-text.js";
import {
  type ServiceName,
  type ServiceSettings,
  serviceNames,
  serviceVariables,
} from "./read-service-settings.js";
import type { RunningSimulators } from "./simulator-endpoints.js";

/** Where a service of a run is: its simulator or the address from the environment. */
export interface ServiceOrigin {
  service: ServiceName;
  simulated: boolean;
  /** Without credentials. */
  url: string;
}

/** What {@link resolveServices} needs. */
export interface ResolveServicesOptions {
  settings: ServiceSettings;
  /** The reasoner simulator's scripted model. */
  scenario: ReasonerScenarioName | ScenarioFunction;
  /** How the messaging simulator answers approval requests. */
  answer: AnswerMode;
  logger: Logger;
  approvalTimeoutMs?: number | undefined;
  /** Handed to the examples as `services.allowEdits`: their policy lets the person change a call before approving it. @default false */
  allowEdits?: boolean | undefined;
  /** Given to the examples, for durable runs. */
  runStore?: RunStore | undefined;
  /** Given to the examples, to seal durable runs (`SWITCHYARD_STATE_KEY`). */
  stateKey?: string | undefined;
  /** Given to the examples: where every approval decision is appended. */
  auditLog?: ApprovalAuditLog | undefined;
  /** Given to the examples: who may approve (`--approver-directory`). */
  approverDirectory?: ApproverDirectory | undefined;
}

/** The services of one run; `close()` stops the simulators it started. */
export interface ResolvedServices {
  services: ExampleServices;
  origins: Record<ServiceName, ServiceOrigin>;
  /** The simulators started for this run, by service. */
  simulators: Partial<RunningSimulators>;
  close(): Promise<void>;
}

/**
 * Starts a simulator for each service the settings leave unset and builds
 * the clients and the approver over simulators and real services alike. A
 * bad address or token is a usage error naming its variables; nothing is
 * left running when this throws.
 */
export async function resolveServices(options: ResolveServicesOptions): Promise<ResolvedServices> {
  const { settings } = options;
  const simulators = await startNeededSimulators(options);
  const close = async () => {
    await Promise.all(Object.values(simulators).map((simulator) => simulator.close()));
  };
  try {
    const { reasoner, orders, docs, messaging } = simulators;
    const endpoints: ServiceEndpoints = {
      reasoner: {
        ...(settings.reasoner ?? { url: reasoner!.url, apiKey: reasoner!.apiKey }),
        model: settings.model,
      },
      orders: settings.orders ?? { url: orders!.url, token: orders!.token },
      docs: settings.docs ?? { url: docs!.url, token: docs!.token },
      messaging: settings.messaging ?? {
        url: messaging!.url,
        token: messaging!.token,
        approverLinkId: messaging!.approverLinkId,
      },
    };
    const services = createExampleServices(endpoints, {
      logger: options.logger,
      approvalTimeoutMs: options.approvalTimeoutMs,
      allowEdits: options.allowEdits,
      runStore: options.runStore,
      stateKey: options.stateKey,
      auditLog: options.auditLog,
      approverDirectory: options.approverDirectory,
      describeService: (service) =>
        settings[service] === undefined
          ? `the ${service} simulator`
          : `${serviceVariables[service].url} / ${serviceVariables[service].secret}`,
    });
    const origins = Object.fromEntries(
      serviceNames.map((service) => [
        service,
        {
          service,
          simulated: settings[service] === undefined,
          url: displayUrl(endpoints[service].url),
        },
      ]),
    ) as Record<ServiceName, ServiceOrigin>;
    return { services, origins, simulators, close };
  } catch (error) {
    await close();
    if (error instanceof ConfigurationError) {
      throw usageError(error.problems.join("\n"), { cause: error });
    }
    throw error;
  }
}

async function startNeededSimulators(
  options: ResolveServicesOptions,
): Promise<Partial<RunningSimulators>> {
  const { settings } = options;
  const starting = {
    reasoner: settings.reasoner
      ? undefined
      : startReasonerSimulator({ scenario: options.scenario }),
    orders: settings.orders ? undefined : startOrdersSimulator(),
    docs: settings.docs ? undefined : startDocsSimulator(),
    messaging: settings.messaging ? undefined : startMessagingSimulator({ answer: options.answer }),
  };
  const entries = Object.entries(starting).filter(([, promise]) => promise !== undefined);
  const settled = await Promise.allSettled(entries.map(([, promise]) => promise!));
  const started = Object.fromEntries(
    entries.flatMap(([service], index) => {
      const result = settled[index]!;
      return result.status === "fulfilled" ? [[service, result.value]] : [];
    }),
  ) as Partial<RunningSimulators>;
  const failure = settled.find((result) => result.status === "rejected");
  if (failure) {
    await Promise.all(Object.values(started).map((simulator) => simulator.close()));
    throw (failure as PromiseRejectedResult).reason;
  }
  return started;
}
