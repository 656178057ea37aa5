/**
 * `switchyard-agents/ag-ui`: a Switchyard agent served over AG-UI 1.0, so any
 * AG-UI client (CopilotKit, `@ag-ui/client`'s HttpAgent, your own page)
 * streams its runs and answers its approvals as interrupts. A Fetch API
 * handler (`createAgUiHandler`) for Next.js route handlers and Hono, and
 * `toNodeHandler` for `node:http`. Loads `@ag-ui/core`, an optional peer
 * dependency, which `import("switchyard-agents")` never does.
 *
 * @module switchyard-agents/ag-ui
 */
export { AgUiApprover } from "./ag-ui-approver.js";
export type {
  AgUiAgentContext,
  AgUiHandler,
  AgUiHandlerOptions,
} from "./ag-ui-handler-options.js";
export type { ResumeRefusalCode } from "./check-resume.js";
export { createAgUiHandler } from "./create-ag-ui-handler.js";
export { toNodeHandler } from "./to-node-handler.js";
