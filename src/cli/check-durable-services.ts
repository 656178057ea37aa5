import { usageError } from "./command-error.js";
import { type ExampleDefinition, servicesUsedBy } from "./example-definition.js";
import { type ServiceSettings, serviceVariables } from "./read-service-settings.js";

/**
 * Throws a usage `CommandError` unless every service the example uses is
 * set in the environment. A simulator started by the command stops when the
 * command exits, and with it the approval question (messaging) and the data
 * the run acts on (orders, docs): a resumed run would meet fresh simulators
 * that never heard of either. The reasoner may stay simulated, since it
 * keeps nothing between calls (the conversation is in the saved run).
 */
export function checkDurableServices(
  settings: ServiceSettings,
  example: ExampleDefinition,
  command: string,
): void {
  const simulated = servicesUsedBy(example).filter((service) => !settings[service]);
  if (simulated.length === 0) return;
  const names = simulated.join(" and ");
  const variables = simulated.map((service) => serviceVariables[service].url).join(", ");
  throw usageError(
    `${command} needs the ${names} ${simulated.length === 1 ? "service" : "services"} of ${example.name} to run outside this command: a simulator started here stops when the command exits, and the approval question and the data the run acts on would go with it. Start the simulators with switchyard sim in another shell and export the lines it prints (${variables}, ...), or set your own services' variables.`,
  );
}
