import {
  createExampleServices,
  type ExampleServices,
  simulatorEndpoints,
} from "switchyard-agents/cli";
import { type Simulators, startSimulators } from "switchyard-agents/simulators";
import type { AnswerMode } from "../../src/simulators/messaging/answer-mode.js";
import type { ReasonerScenarioName } from "../../src/simulators/reasoner/reasoner-scenarios.js";

/** Simulators playing one example, and the services an example's agent is built from. */
export interface ExampleHarness {
  simulators: Simulators;
  services: ExampleServices;
  /** Restores the seeded data and sets how the simulated person answers. */
  reset(answer: AnswerMode): void;
  close(): Promise<void>;
}

/** Starts the four simulators in-process, the reasoner playing `scenario`. */
export async function startExampleHarness(scenario: ReasonerScenarioName): Promise<ExampleHarness> {
  const simulators = await startSimulators({
    reasoner: { scenario },
    messaging: { answerDelayMs: 5, deliveryStepMs: 1 },
  });
  return {
    simulators,
    services: createExampleServices(simulatorEndpoints(simulators)),
    reset: (answer) => {
      simulators.orders.reset();
      simulators.docs.reset();
      simulators.messaging.reset();
      simulators.messaging.setAnswer(answer);
    },
    close: () => simulators.close(),
  };
}
