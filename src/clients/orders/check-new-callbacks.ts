import { ConfigurationError } from "../../errors/configuration-error.js";
import { checkCallbackMessageType } from "./check-message-types.js";
import type { NewCallback } from "./order-types.js";

/**
 * Checks every callback to register and returns the bodies to send (only the
 * four known fields). Every problem of every item is reported at once, by
 * index, and nothing is sent while any remains: the service's answer has no
 * per-item status, so a partial registration could not be reported.
 */
export function checkNewCallbacks(callbacks: unknown): NewCallback[] {
  if (!Array.isArray(callbacks)) {
    throw new ConfigurationError(
      "callbacks must be an array of { url, message_type, api_version?, token? }",
    );
  }
  const problems: string[] = [];
  const checked: NewCallback[] = [];
  callbacks.forEach((value: unknown, index) => {
    const label = `callbacks[${index}]`;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problems.push(`${label} must be an object { url, message_type, api_version?, token? }`);
      return;
    }
    const item = value as Record<string, unknown>;
    const urlProblem = describeUrlProblem(item.url);
    if (urlProblem) problems.push(`${label}.url ${urlProblem}`);
    const typeProblem = checkCallbackMessageType(item.message_type, `${label}.message_type`, false);
    if (typeProblem) problems.push(typeProblem);
    for (const field of ["api_version", "token"] as const) {
      if (item[field] !== undefined && (typeof item[field] !== "string" || item[field] === "")) {
        problems.push(`${label}.${field} must be a non-empty string when given`);
      }
    }
    checked.push({
      url: item.url as string,
      message_type: item.message_type as NewCallback["message_type"],
      ...(typeof item.api_version === "string" ? { api_version: item.api_version } : {}),
      ...(typeof item.token === "string" ? { token: item.token } : {}),
    });
  });
  if (problems.length > 0) throw new ConfigurationError(problems);
  return checked;
}

function describeUrlProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || value === "") {
    return "must be the https address that receives the webhooks";
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not an absolute URL: give an address such as https://hooks.example.com/orders";
  }
  if (url.protocol !== "https:") return `uses ${url.protocol} but callbacks must be https`;
  if (url.username || url.password) return "must not carry credentials";
  return undefined;
}
