import { isLoopbackHostname } from "../../internal/http/url-policy.js";

/** Which of the service's two separate worlds a client is bound to. */
export type OrderEnvironment = "sandbox" | "production";

/** The accepted values of the `environment` option. */
export const orderEnvironments: readonly OrderEnvironment[] = ["sandbox", "production"];

/**
 * Guesses the environment from the base URL when the caller did not say:
 * a host name containing `sandbox` or a loopback host (the simulators) is the
 * sandbox; anything else is treated as production, the cautious default.
 */
export function inferOrderEnvironment(baseUrl: URL): OrderEnvironment {
  const hostname = baseUrl.hostname.toLowerCase();
  if (hostname.includes("sandbox")) return "sandbox";
  if (isLoopbackHostname(hostname)) return "sandbox";
  return "production";
}
