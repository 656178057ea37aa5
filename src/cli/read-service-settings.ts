import { ConfigurationError } from "../errors/configuration-error.js";
import { parseServiceUrl } from "../internal/http/url-policy.js";
import { withoutTrailingSlashes } from "../internal/without-trailing-slashes.js";
import { usageError } from "./command-error.js";
import { displayUrl } from "./format-text.js";

/** The four remote services, in the order the command shows them. */
export const serviceNames = ["reasoner", "orders", "docs", "messaging"] as const;

/** One of {@link serviceNames}. */
export type ServiceName = (typeof serviceNames)[number];

/** A real reasoning service, from `SWITCHYARD_REASONER_URL` and `SWITCHYARD_REASONER_API_KEY`. */
export interface ReasonerSettings {
  url: string;
  apiKey: string;
}

/** A real order or docs service: its address and bearer token. */
export interface TokenServiceSettings {
  url: string;
  token: string;
}

/** A real messaging service, and the subscription link of the person who approves. */
export interface MessagingSettings extends TokenServiceSettings {
  approverLinkId: string;
}

/**
 * Which services are real, read from the environment; `undefined` means the
 * service's simulator is used.
 */
export interface ServiceSettings {
  reasoner: ReasonerSettings | undefined;
  orders: TokenServiceSettings | undefined;
  docs: TokenServiceSettings | undefined;
  messaging: MessagingSettings | undefined;
  /** `SWITCHYARD_MODEL`, sent with every model call (the simulator accepts any name). */
  model: string | undefined;
  /** Variables that are set but have no effect, one sentence each. */
  notes: string[];
}

/**
 * The environment variables of each service: its address, the credential
 * that must come with it, and the other variables it needs.
 */
export const serviceVariables = {
  reasoner: { url: "SWITCHYARD_REASONER_URL", secret: "SWITCHYARD_REASONER_API_KEY", also: [] },
  orders: { url: "SWITCHYARD_ORDERS_URL", secret: "SWITCHYARD_ORDERS_TOKEN", also: [] },
  docs: { url: "SWITCHYARD_DOCS_URL", secret: "SWITCHYARD_DOCS_TOKEN", also: [] },
  messaging: {
    url: "SWITCHYARD_MESSAGING_URL",
    secret: "SWITCHYARD_MESSAGING_TOKEN",
    also: ["SWITCHYARD_APPROVER_LINK"],
  },
} as const satisfies Record<ServiceName, { url: string; secret: string; also: readonly string[] }>;

/**
 * Reads which services are real from `SWITCHYARD_*` variables (an empty
 * value counts as unset). A service's address without its token, key or
 * approver link is a usage error naming every such variable; a token without
 * its address only earns a note, since the simulator is then used.
 */
export function readServiceSettings(
  env: Readonly<Record<string, string | undefined>>,
): ServiceSettings {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const problems: string[] = [];
  const notes: string[] = [];
  const settingsOf = (service: ServiceName): Record<string, string> | undefined => {
    const variables = serviceVariables[service];
    const url = read(variables.url);
    const companions = [variables.secret, ...variables.also];
    if (url === undefined) {
      const stray = companions.filter((name) => read(name) !== undefined);
      if (stray.length > 0) {
        notes.push(
          `${stray.join(" and ")} ${stray.length === 1 ? "is" : "are"} set but ${variables.url} is not, so the ${service} simulator is used.`,
        );
      }
      return undefined;
    }
    const shape = urlProblem(service, url);
    if (shape !== undefined) problems.push(shape);
    const missing = companions.filter((name) => read(name) === undefined);
    if (missing.length > 0) {
      problems.push(
        `${variables.url} is set but ${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not: set ${missing.length === 1 ? "it" : "them"} too, or unset ${variables.url} to use the ${service} simulator.`,
      );
      return undefined;
    }
    if (shape !== undefined) return undefined;
    return Object.fromEntries([
      ["url", url],
      ...companions.map((name) => [name, read(name) as string]),
    ]);
  };

  const reasoner = settingsOf("reasoner");
  const orders = settingsOf("orders");
  const docs = settingsOf("docs");
  const messaging = settingsOf("messaging");
  if (problems.length > 0) throw usageError(problems.join("\n"));
  return {
    reasoner: reasoner && {
      url: reasoner.url!,
      apiKey: reasoner[serviceVariables.reasoner.secret]!,
    },
    orders: orders && { url: orders.url!, token: orders[serviceVariables.orders.secret]! },
    docs: docs && { url: docs.url!, token: docs[serviceVariables.docs.secret]! },
    messaging: messaging && {
      url: messaging.url!,
      token: messaging[serviceVariables.messaging.secret]!,
      approverLinkId: messaging.SWITCHYARD_APPROVER_LINK!,
    },
    model: read("SWITCHYARD_MODEL"),
    notes,
  };
}

/**
 * What is wrong with a service address, naming its variable: not an address
 * the clients accept (not a URL, plain http to another host), or a path the
 * clients would only meet as a 404 from the service, with the address to use
 * instead. Undefined when it is right.
 */
function urlProblem(service: ServiceName, url: string): string | undefined {
  const variable = serviceVariables[service].url;
  let parsed: URL;
  try {
    parsed = parseServiceUrl(url, variable);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    return error.problems.join("; ");
  }
  const path = withoutTrailingSlashes(parsed.pathname);
  const shown = displayUrl(url);
  if (service === "messaging" && /\/v1$/i.test(path)) {
    return `${variable} ${shown} ends in /v1, but it is the base address: every route adds /v1 itself. Set it without /v1: ${parsed.origin}${path.replace(/\/v1$/i, "")}`;
  }
  if (service === "orders" && !/\/[^/]+\/api\/v1$/.test(path)) {
    return `${variable} ${shown} has no /{account_slug}/api/v1/ path: set it to https://{host}/{account_slug}/api/v1/, here ${parsed.origin}${suggestOrdersPath(path)}`;
  }
  return undefined;
}

function suggestOrdersPath(path: string): string {
  const api = path.indexOf("/api/");
  if (api > 0) return `${path.slice(0, api)}/api/v1/`;
  if (/\/[^/]+\/api$/.test(path)) return `${path}/v1/`;
  if (/^\/[^/]+$/.test(path) && path !== "/api") return `${path}/api/v1/`;
  return "/{account_slug}/api/v1/";
}
