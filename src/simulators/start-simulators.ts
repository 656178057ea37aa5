import {
  type DocsSimulator,
  type DocsSimulatorOptions,
  startDocsSimulator,
} from "./docs/docs-simulator.js";
import {
  type MessagingSimulator,
  type MessagingSimulatorOptions,
  startMessagingSimulator,
} from "./messaging/messaging-simulator.js";
import {
  type OrdersSimulator,
  type OrdersSimulatorOptions,
  startOrdersSimulator,
} from "./orders/orders-simulator.js";
import type {
  ReasonerSimulator,
  ReasonerSimulatorOptions,
} from "./reasoner/reasoner-simulator-options.js";
import { startReasonerSimulator } from "./reasoner/start-reasoner-simulator.js";

/** Options of each simulator `startSimulators` starts. */
export interface SimulatorsOptions {
  reasoner?: ReasonerSimulatorOptions;
  orders?: OrdersSimulatorOptions;
  docs?: DocsSimulatorOptions;
  messaging?: MessagingSimulatorOptions;
}

/** The four running simulators; `close()` stops them all. */
export interface Simulators {
  reasoner: ReasonerSimulator;
  orders: OrdersSimulator;
  docs: DocsSimulator;
  messaging: MessagingSimulator;
  close(): Promise<void>;
}

/**
 * Starts the reasoner, orders, docs and messaging simulators on 127.0.0.1
 * (free ports unless given). If one fails to start, the others are closed.
 *
 * @example
 * const simulators = await startSimulators({ messaging: { answer: "deny" } });
 * try { ... } finally { await simulators.close(); }
 */
export async function startSimulators(options: SimulatorsOptions = {}): Promise<Simulators> {
  const started = await Promise.allSettled([
    startReasonerSimulator(options.reasoner),
    startOrdersSimulator(options.orders),
    startDocsSimulator(options.docs),
    startMessagingSimulator(options.messaging),
  ]);
  const failure = started.find((result) => result.status === "rejected");
  if (failure) {
    await Promise.all(
      started.map((result) => (result.status === "fulfilled" ? result.value.close() : undefined)),
    );
    throw (failure as PromiseRejectedResult).reason;
  }
  const [reasoner, orders, docs, messaging] = started.map(
    (result) => (result as PromiseFulfilledResult<unknown>).value,
  ) as [ReasonerSimulator, OrdersSimulator, DocsSimulator, MessagingSimulator];
  return {
    reasoner,
    orders,
    docs,
    messaging,
    close: async () => {
      await Promise.all([reasoner.close(), orders.close(), docs.close(), messaging.close()]);
    },
  };
}
