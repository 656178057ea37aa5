/**
 * `switchyard-agents/cli`: the runner behind the `switchyard` command, for example
 * files' main guards and for running an example from your own code or tests.
 * The command itself (`switchyard run`, `runs`, `resume`, `examples`, `sim`)
 * is `main.ts`.
 *
 * @module switchyard-agents/cli
 */
export { type ApprovalMode, approvalModes, defaultApprovalMode } from "./approval-mode.js";
export {
  buildRunReport,
  type RunReport,
  type RunReportApproval,
  type RunReportStep,
  type RunReportToolCall,
} from "./build-run-report.js";
export type { CliIo, TerminalAware } from "./cli-io.js";
export { CommandError } from "./command-error.js";
export {
  type CreateExampleServicesOptions,
  createExampleServices,
  type ServiceEndpoints,
} from "./create-example-services.js";
export type {
  ExampleDefinition,
  ExampleServiceName,
  ExampleServices,
} from "./example-definition.js";
export { type ExitCode, exitCodes } from "./exit-codes.js";
export type { RunListing, RunsReport } from "./list-runs.js";
export {
  readServiceSettings,
  type ServiceName,
  type ServiceSettings,
  serviceNames,
  serviceVariables,
} from "./read-service-settings.js";
export { ProgressRenderer, type ProgressRendererOptions } from "./render-progress.js";
export { type ResumeRunOptions, resumeRun } from "./resume-run.js";
export { type RunExampleOptions, runExample } from "./run-example.js";
export { isMainModule, runIfMain } from "./run-if-main.js";
export type { RunShowApproval, RunShowReport, RunShowToolCall } from "./show-run.js";
export { type RunningSimulators, simulatorEndpoints } from "./simulator-endpoints.js";
