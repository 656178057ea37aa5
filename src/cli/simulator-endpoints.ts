import type { DocsSimulator } from "../simulators/docs/docs-simulator.js";
import type { MessagingSimulator } from "../simulators/messaging/messaging-simulator.js";
import type { OrdersSimulator } from "../simulators/orders/orders-simulator.js";
import type { ReasonerSimulator } from "../simulators/reasoner/reasoner-simulator-options.js";
import type { ServiceEndpoints } from "./create-example-services.js";

/** The four running simulators, as `startSimulators` returns them. */
export interface RunningSimulators {
  reasoner: ReasonerSimulator;
  orders: OrdersSimulator;
  docs: DocsSimulator;
  messaging: MessagingSimulator;
}

/** The addresses and tokens of running simulators, for `createExampleServices`. */
export function simulatorEndpoints(simulators: RunningSimulators): ServiceEndpoints {
  const { reasoner, orders, docs, messaging } = simulators;
  return {
    reasoner: { url: reasoner.url, apiKey: reasoner.apiKey },
    orders: { url: orders.url, token: orders.token },
    docs: { url: docs.url, token: docs.token },
    messaging: {
      url: messaging.url,
      token: messaging.token,
      approverLinkId: messaging.approverLinkId,
    },
  };
}
