/**
 * `switchyard-agents/cli`: the runner behind the `switchyard` command, for example
 * files' main guards and for running an example from your own code or tests.
 * The command itself (`switchyard run`, `runs`, `resume`, `examples`, `sim`)
 * is `main.ts`.
 *
 * @module switchyard-agents/cli
 */
export type { RunReport } from "./build-run-report.js";
export { createExampleServices } from "./create-example-services.js";
export type {
  ExampleDefinition,
  ExampleServices,
} from "./example-definition.js";
export type { RunsReport } from "./list-runs.js";
export { type RunExampleOptions, runExample } from "./run-example.js";
export { runIfMain } from "./run-if-main.js";
export type { RunShowReport } from "./show-run.js";
export { simulatorEndpoints } from "./simulator-endpoints.js";
