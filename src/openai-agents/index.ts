/**
 * `switchyard-agents/openai-agents`: Switchyard's approval gate inside an
 * OpenAI Agents SDK app. `approvalGate({ tools, approver, approvalPolicy,
 * auditLog })` gives the app's own `tool()`s a `needsApproval` decided by
 * the approval policy, resolves the run's interruptions through any
 * Switchyard approver, and lets a call run only with the input approved,
 * once. Needs `@openai/agents`, which `import("switchyard-agents")` never
 * loads.
 *
 * @module switchyard-agents/openai-agents
 */
export { approvalGate } from "./approval-gate.js";
