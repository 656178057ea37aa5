import {
  type ReasonerScenarioName,
  reasonerScenarios,
} from "../simulators/reasoner/reasoner-scenarios.js";

/** The reasoner simulator plays the example of the same name, or picks by the task. */
export function scenarioFor(exampleName: string): ReasonerScenarioName {
  return Object.hasOwn(reasonerScenarios, exampleName)
    ? (exampleName as ReasonerScenarioName)
    : "auto";
}
