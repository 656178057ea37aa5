/**
 * `switchyard-agents/testing`: for testing your own agents without a network: a
 * scripted model and approver, and the conformance suite a run store of yours
 * runs (`runStoreConformance`).
 *
 * @module switchyard-agents/testing
 */
export {
  type ConformanceTest,
  type RunStoreConformanceOptions,
  runStoreConformance,
} from "./run-store-conformance.js";
export {
  type ScriptedApproval,
  ScriptedApprover,
  type ScriptedCheck,
  type ScriptedCheckAnswer,
} from "./scripted-approver.js";
export {
  type ScriptedAnswer,
  type ScriptedFailure,
  ScriptedModel,
  type ScriptedStep,
  type ScriptedStepContext,
  type ScriptedToolCall,
} from "./scripted-model.js";
