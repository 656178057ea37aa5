import type { Simulators } from "switchyard-agents/simulators";

/** A service the simulators play. */
export type SimulatedService = "reasoner" | "orders" | "messaging";

/**
 * The variables that point `switchyard` at these simulators as if they were
 * the real services: each address and credential, and for messaging the
 * approver's subscription link. Only `services` when given; a service left
 * out is the command's own simulator.
 */
export function simulatorVariables(
  { reasoner, orders, messaging }: Simulators,
  services: readonly SimulatedService[] = ["reasoner", "orders", "messaging"],
): Record<string, string> {
  const variables: Record<SimulatedService, Record<string, string>> = {
    reasoner: {
      SWITCHYARD_REASONER_URL: reasoner.url,
      SWITCHYARD_REASONER_API_KEY: reasoner.apiKey,
    },
    orders: { SWITCHYARD_ORDERS_URL: orders.url, SWITCHYARD_ORDERS_TOKEN: orders.token },
    messaging: {
      SWITCHYARD_MESSAGING_URL: messaging.url,
      SWITCHYARD_MESSAGING_TOKEN: messaging.token!,
      SWITCHYARD_APPROVER_LINK: messaging.approverLinkId,
    },
  };
  return Object.assign({}, ...services.map((service) => variables[service]));
}
