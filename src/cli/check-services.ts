import type { SubscriptionLink } from "../clients/messaging/messaging-types.js";
import { NotFoundError } from "../errors/api-error.js";
import { CommandError, usageError } from "./command-error.js";
import { describeFailure } from "./describe-failure.js";
import type { ExampleServiceName } from "./example-definition.js";
import { exitCodes } from "./exit-codes.js";
import type { ResolvedServices } from "./resolve-services.js";

/**
 * Checks, with one harmless read each, that the real services an example
 * uses answer and accept their tokens, and that the approver's subscription
 * link is active; simulators are not checked. Throws one `CommandError`
 * listing every problem. The reasoner is not checked: a probe would be a
 * paid model call, and its first real call names it anyway.
 */
export async function checkServices(
  resolved: ResolvedServices,
  uses: readonly ExampleServiceName[],
  signal: AbortSignal,
): Promise<void> {
  const { services, origins } = resolved;
  const probes: Record<ExampleServiceName, () => Promise<string | undefined>> = {
    orders: async () => {
      await services.orders.listCallbackHolds({ signal });
      return undefined;
    },
    docs: async () => {
      await services.docs.getCurrentUser({ signal });
      return undefined;
    },
    messaging: async () => {
      let link: SubscriptionLink;
      try {
        link = await services.messaging.getSubscriptionLink(services.approverLinkId, { signal });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        return `The messaging service at ${origins.messaging.url} has no subscription link ${services.approverLinkId} (SWITCHYARD_APPROVER_LINK): check the id, or create a link (POST /v1/subscription-links) and have the approver open it.`;
      }
      if (link.state === "active") return undefined;
      const next =
        link.state === "pending"
          ? `open its consent address${link.url ? ` (${link.url})` : ""} on the approver's device, then run again`
          : "create a new link (POST /v1/subscription-links), have the approver open it, and set SWITCHYARD_APPROVER_LINK to its id";
      return `The approver's subscription link ${services.approverLinkId} (SWITCHYARD_APPROVER_LINK) is ${String(link.state)}, not active: ${next}.`;
    },
  };
  const checked = uses.filter((service) => !origins[service].simulated);
  const outcomes = await Promise.all(
    checked.map(async (service) => {
      try {
        const problem = await probes[service]();
        return problem === undefined ? undefined : usageError(problem);
      } catch (error) {
        const failure = describeFailure(error, { origins, service });
        return new CommandError(failure.message, failure.exitCode, { cause: error });
      }
    }),
  );
  const failures = outcomes.filter((outcome) => outcome !== undefined);
  if (failures.length === 0) return;
  const exitCode = failures.every((failure) => failure.exitCode === exitCodes.usage)
    ? exitCodes.usage
    : exitCodes.notCompleted;
  throw new CommandError(failures.map((failure) => failure.message).join("\n"), exitCode);
}
