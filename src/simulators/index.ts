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
export type { DocsFile, DocsPush, DocsState, DocsUser, Documentation } from "./docs/docs-state.js";
export { retiredSupportEmail, storefrontPlantedFaults } from "./docs/storefront-files.js";
export type { FaultRule } from "./http/fault-injector.js";
export type { RecordedRequest } from "./http/request-log.js";
export type {
  AnswerChoice,
  AnswerFunction,
  AnswerMode,
  InteractionQuestion,
} from "./messaging/answer-mode.js";
export {
  defaultMessagingFeatures,
  type MessagingSimulator,
  type MessagingSimulatorOptions,
  startMessagingSimulator,
} from "./messaging/messaging-simulator.js";
export type {
  InteractionRecord,
  InteractionState,
  LinkState,
  MessageRecord,
  MessageState,
  MessagingState,
  SubscriptionLink,
} from "./messaging/messaging-state.js";
export {
  freeTextOptionId,
  type TerminalAnswerer,
  type TerminalAnswererOptions,
  terminalAnswerer,
} from "./messaging/terminal-answerer.js";
export {
  type CallbackMessageType,
  callbackMessageTypes,
  type HoldMessageType,
  holdMessageTypes,
} from "./orders/message-types.js";
export {
  type OrdersSimulator,
  type OrdersSimulatorOptions,
  startOrdersSimulator,
} from "./orders/orders-simulator.js";
export type {
  CallbackRecord,
  OrderRecord,
  OrderStatus,
  OrdersState,
  StoredRecord,
} from "./orders/orders-state.js";
export { retiredCallbackHost } from "./orders/seed-callbacks.js";
export { lateOrderIdentifier } from "./orders/seed-orders.js";
export { type ReasonerScenarioName, reasonerScenarios } from "./reasoner/reasoner-scenarios.js";
export type {
  ReasonerFault,
  ReasonerSimulator,
  ReasonerSimulatorOptions,
  RecordedReasonerRequest,
} from "./reasoner/reasoner-simulator-options.js";
export type {
  ReceivedChatRequest,
  ScenarioContext,
  ScenarioFunction,
  ScriptedAnswer,
  ScriptedToolCall,
} from "./reasoner/scripted-answer.js";
export { startReasonerSimulator } from "./reasoner/start-reasoner-simulator.js";
export type { StreamChunking, StreamStyle } from "./reasoner/stream-style.js";
export { type Simulators, type SimulatorsOptions, startSimulators } from "./start-simulators.js";
