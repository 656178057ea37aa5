/**
 * Local simulators of the reasoning, order-management, documentation-hosting
 * and messaging services: real HTTP servers on 127.0.0.1 speaking the wire
 * contract, with seeded in-memory state. Test your own agents against them.
 *
 * @module switchyard-agents/simulators
 */
export {
  type DocsSimulator,
  type DocsSimulatorOptions,
  startDocsSimulator,
} from "./docs/docs-simulator.js";
export type { AnswerFunction } from "./messaging/answer-mode.js";
export {
  type MessagingSimulator,
  type MessagingSimulatorOptions,
  startMessagingSimulator,
} from "./messaging/messaging-simulator.js";
export { terminalAnswerer } from "./messaging/terminal-answerer.js";
export {
  type OrdersSimulator,
  type OrdersSimulatorOptions,
  startOrdersSimulator,
} from "./orders/orders-simulator.js";
export { reasonerScenarios } from "./reasoner/reasoner-scenarios.js";
export type {
  ReasonerSimulator,
  ReasonerSimulatorOptions,
} from "./reasoner/reasoner-simulator-options.js";
export type {
  ScenarioFunction,
  ScriptedAnswer,
} from "./reasoner/scripted-answer.js";
export { startReasonerSimulator } from "./reasoner/start-reasoner-simulator.js";
export { type Simulators, type SimulatorsOptions, startSimulators } from "./start-simulators.js";
