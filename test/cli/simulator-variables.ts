import type { Simulators } from "switchyard-agents/simulators";

/**
 * The variables that point `switchyard` at these simulators as if they were
 * the real services: each address and credential, and the approver's
 * subscription link.
 */
export function simulatorVariables({
  reasoner,
  orders,
  messaging,
}: Simulators): Record<string, string> {
  return {
    SWITCHYARD_REASONER_URL: reasoner.url,
    SWITCHYARD_REASONER_API_KEY: reasoner.apiKey,
    SWITCHYARD_ORDERS_URL: orders.url,
    SWITCHYARD_ORDERS_TOKEN: orders.token,
    SWITCHYARD_MESSAGING_URL: messaging.url,
    SWITCHYARD_MESSAGING_TOKEN: messaging.token!,
    SWITCHYARD_APPROVER_LINK: messaging.approverLinkId,
  };
}
