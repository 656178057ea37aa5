/**
 * A span as Switchyard uses it; an OpenTelemetry `Span` is one. Written out
 * so the types need no OpenTelemetry package.
 */
export interface TracingSpan {
  setAttribute(key: string, value: string | number | boolean | string[]): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  updateName?(name: string): unknown;
  end(): void;
}

/** A tracer as Switchyard uses it; an OpenTelemetry `Tracer` is one. */
export interface TracingTracer {
  startSpan(name: string, options?: object, context?: unknown): TracingSpan;
}

/**
 * How a run is traced with OpenTelemetry (`@opentelemetry/api`, an optional
 * peer dependency, loaded only when tracing is on).
 */
export interface TracingOptions {
  /** @default the tracer named `switchyard` of the global tracer provider */
  tracer?: TracingTracer | undefined;
  /**
   * Put message text, tool arguments and tool results on the spans
   * (`gen_ai.input.messages`, `gen_ai.output.messages`,
   * `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`), with secrets
   * redacted. Off by default: prompts and business data often may not leave
   * the process.
   * @default false
   */
  recordContent?: boolean | undefined;
  /** `gen_ai.agent.name`, and the `invoke_agent {name}` span's name. @default "switchyard" */
  agentName?: string | undefined;
  /**
   * `gen_ai.provider.name` of `chat` spans.
   * @default the model's `providerName` (a `ReasonerClient` names the well-known
   * provider of its address, or the first of its provider routing), else "unknown"
   */
  providerName?: string | undefined;
}

/** Tracing options, checked; `undefined` when tracing is off. */
export interface TracingSettings {
  tracer: TracingTracer | undefined;
  recordContent: boolean;
  agentName: string;
  providerName: string | undefined;
}

const knownKeys = new Set(["tracer", "recordContent", "agentName", "providerName"]);

/** Reads the `tracing` option: `true`, `false`, or {@link TracingOptions}. */
export function readTracing(value: unknown, problems: string[]): TracingSettings | undefined {
  if (value === undefined || value === false) return undefined;
  const shape =
    "tracing must be true, false or { tracer?, recordContent?, agentName?, providerName? }";
  if (value === true)
    return {
      tracer: undefined,
      recordContent: false,
      agentName: "switchyard",
      providerName: undefined,
    };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.push(`${shape}.`);
    return undefined;
  }
  const options = value as TracingOptions;
  for (const key of Object.keys(options)) {
    if (!knownKeys.has(key)) problems.push(`${shape}; unknown field "${key}".`);
  }
  if (options.tracer !== undefined && typeof options.tracer?.startSpan !== "function") {
    problems.push("tracing.tracer must be an OpenTelemetry Tracer (with startSpan()).");
  }
  if (options.recordContent !== undefined && typeof options.recordContent !== "boolean") {
    problems.push("tracing.recordContent must be true or false.");
  }
  for (const key of ["agentName", "providerName"] as const) {
    const name = options[key];
    if (name !== undefined && (typeof name !== "string" || name.trim() === "")) {
      problems.push(`tracing.${key} must be a non-empty string.`);
    }
  }
  return {
    tracer: options.tracer,
    recordContent: options.recordContent === true,
    agentName: options.agentName ?? "switchyard",
    providerName: options.providerName,
  };
}
