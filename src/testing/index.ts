/**
 * `switchyard-agents/testing`: for testing your own agents without a network: a
 * scripted model and approver, and the conformance suites a run store
 * (`runStoreConformance`), a run queue (`runQueueConformance`) and an audit
 * log (`auditLogConformance`) of yours run.
 *
 * @module switchyard-agents/testing
 */
export {
  type AuditLogConformanceOptions,
  type AuditLogUnderTest,
  auditLogConformance,
} from "./audit-log-conformance.js";
export {
  type RunQueueConformanceOptions,
  runQueueConformance,
} from "./run-queue-conformance.js";
export {
  type RunStoreConformanceOptions,
  runStoreConformance,
} from "./run-store-conformance.js";
export {
  type ScriptedApproval,
  ScriptedApprover,
  type ScriptedCheck,
} from "./scripted-approver.js";
export {
  type ScriptedAnswer,
  ScriptedModel,
  type ScriptedStep,
} from "./scripted-model.js";
