import { ConfigurationError } from "../../errors/configuration-error.js";

type OpenTelemetryApi = typeof import("@opentelemetry/api");
let loading: Promise<OpenTelemetryApi> | undefined;

/**
 * `@opentelemetry/api`, imported on first use only, so an agent without
 * tracing never loads it. Rejects with a ConfigurationError saying how to
 * install it when it is missing.
 */
export function loadOpenTelemetry(): Promise<OpenTelemetryApi> {
  loading ??= import("@opentelemetry/api").catch((error: unknown) => {
    loading = undefined;
    throw new ConfigurationError(
      "tracing needs the @opentelemetry/api package: npm install @opentelemetry/api (and an OpenTelemetry SDK to export the spans).",
      { cause: error },
    );
  });
  return loading;
}
