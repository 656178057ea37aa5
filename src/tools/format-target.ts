import { escapeUntrustedText } from "../internal/untrusted-text.js";
import type { ToolTarget } from "./tool.js";

/**
 * Where an action happens, in words: `orders service at
 * sandbox.example.com, account acme, environment: sandbox` (production is
 * written in capitals, so it stands out).
 */
export function formatTarget(target: ToolTarget): string {
  const parts = [`${escapeUntrustedText(target.service)} service`];
  if (target.address) parts[0] += ` at ${escapeUntrustedText(target.address)}`;
  if (target.account) parts.push(`account ${escapeUntrustedText(target.account)}`);
  if (target.environment) {
    const environment = escapeUntrustedText(target.environment);
    parts.push(`environment: ${environment === "production" ? "PRODUCTION" : environment}`);
  }
  return parts.join(", ");
}
