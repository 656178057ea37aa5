import type { Context, Span } from "@opentelemetry/api";
import { redactText } from "../../internal/redact.js";
import type { AnyTool } from "../../tools/tool.js";
import type { AgentEvent, AgentEventSink } from "../agent-events.js";
import type { AgentSettings } from "../agent-options.js";
import type { Model, ModelRequest, ModelResponse, ModelStream } from "../model.js";
import { loadOpenTelemetry } from "./load-open-telemetry.js";
import { contentOfMessages, contentOfText } from "./span-content.js";
import type { TracingSettings, TracingTracer } from "./tracing-options.js";

/** One traced run: the settings with the model and the tools wrapped, and the event observer. */
export interface TracedRun {
  settings: AgentSettings;
  /** Wraps the loop's event sink: spans start and end with the run's events. */
  observe(emit: AgentEventSink): AgentEventSink;
}

const failedCallStatuses = new Set([
  "invalid_arguments",
  "unknown_tool",
  "failed",
  "timed_out",
  "aborted",
  "outcome_unknown",
]);

/**
 * Starts a run's `invoke_agent` span and returns the run's settings with
 * the model and the tools wrapped so that each model call is a `chat` span
 * and each tool call an `execute_tool` span (with the tool's own work, its
 * HTTP calls say, as children), following the OpenTelemetry GenAI semantic
 * conventions; each approval wait is an `await_approval` span with its
 * outcome. Content is recorded only with `recordContent`, redacted.
 */
export async function traceRun(
  tracing: TracingSettings,
  settings: AgentSettings,
  runId: string | undefined,
): Promise<TracedRun> {
  const api = await loadOpenTelemetry();
  const known = settings.secrets.values();
  const tracer: TracingTracer = tracing.tracer ?? api.trace.getTracer("switchyard");
  const { SpanKind, SpanStatusCode } = api;
  const start = (
    name: string,
    kind: number,
    attributes: Record<string, unknown>,
    parent: Context,
  ) => tracer.startSpan(name, { kind, attributes: defined(attributes) }, parent) as unknown as Span;
  // What a model may say of itself beyond the Model interface (a
  // ReasonerClient does): who serves it, and its model when a request names none.
  const described = settings.model as { providerName?: unknown; model?: unknown };
  const providerName = tracing.providerName ?? described.providerName;
  const provider = typeof providerName === "string" ? providerName : "unknown";
  const defaultModel = typeof described.model === "string" ? described.model : undefined;

  const agentSpan = start(
    `invoke_agent ${tracing.agentName}`,
    SpanKind.INTERNAL,
    {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": tracing.agentName,
      "gen_ai.provider.name": provider,
      "gen_ai.conversation.id": runId,
    },
    api.context.active(),
  );
  const agentContext = api.trace.setSpan(api.context.active(), agentSpan);
  const toolSpans = new Map<string, Span>();
  const approvalSpans = new Map<string, Span>();
  // Chat spans whose answer has not come: a stream left early ends with the run.
  const openChats = new Set<(response: undefined, error: unknown) => void>();
  const fail = (span: Span, error: unknown, type?: string) => {
    const message = error instanceof Error ? redactText(error.message, known) : undefined;
    span.setAttribute("error.type", type ?? (error instanceof Error ? error.name : "error"));
    span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
  };

  /** A `chat` span for one model call; `settle` ends it with the answer or the error. */
  const chatSpan = (request: ModelRequest) => {
    const requestModel = request.model ?? defaultModel;
    const span = start(
      requestModel ? `chat ${requestModel}` : "chat",
      SpanKind.CLIENT,
      {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider,
        "gen_ai.request.model": requestModel,
        "gen_ai.request.temperature": request.temperature,
        "gen_ai.request.top_p": request.top_p,
        "gen_ai.request.max_tokens": request.max_tokens,
        "gen_ai.output.type": request.response_format?.type === "json_schema" ? "json" : undefined,
        "gen_ai.input.messages": tracing.recordContent
          ? contentOfMessages(request.messages, known)
          : undefined,
      },
      agentContext,
    );
    let ended = false;
    const settle = (response: ModelResponse | undefined, error?: unknown) => {
      if (ended) return;
      ended = true;
      openChats.delete(settle);
      if (response) {
        const choice = response.choices?.[0];
        if (!requestModel && typeof response.model === "string")
          span.updateName(`chat ${response.model}`);
        const attributes = defined({
          "gen_ai.response.model": typeof response.model === "string" ? response.model : undefined,
          "gen_ai.response.id": typeof response.id === "string" ? response.id : undefined,
          "gen_ai.response.finish_reasons": (response.choices ?? []).map(
            (item) => item.finish_reason ?? "unknown",
          ),
          "gen_ai.usage.input_tokens": finite(response.usage?.prompt_tokens),
          "gen_ai.usage.output_tokens": finite(response.usage?.completion_tokens),
          "gen_ai.output.messages":
            tracing.recordContent && choice
              ? contentOfMessages([choice.message], known)
              : undefined,
        });
        for (const [key, value] of Object.entries(attributes)) span.setAttribute(key, value);
      } else {
        fail(span, error);
      }
      span.end();
    };
    openChats.add(settle);
    return { context: api.trace.setSpan(agentContext, span), settle };
  };

  const model = settings.model;
  const tracedModel: Model = {
    ...(typeof providerName === "string" ? { providerName } : {}),
    ...(defaultModel !== undefined ? { model: defaultModel } : {}),
    complete(request, options) {
      const chat = chatSpan(request);
      const answer = api.context.with(chat.context, () => model.complete(request, options));
      answer.then(
        (response) => chat.settle(response),
        (error: unknown) => chat.settle(undefined, error),
      );
      return answer;
    },
    stream(request, options) {
      const chat = chatSpan(request);
      let inner: ModelStream;
      try {
        inner = api.context.with(chat.context, () => model.stream(request, options));
      } catch (error) {
        chat.settle(undefined, error);
        throw error;
      }
      return {
        finalCompletion: () => {
          const answer = inner.finalCompletion();
          answer.then(
            (response) => chat.settle(response),
            (error: unknown) => chat.settle(undefined, error),
          );
          return answer;
        },
        async *[Symbol.asyncIterator]() {
          try {
            yield* inner;
          } catch (error) {
            chat.settle(undefined, error);
            throw error;
          }
        },
      };
    },
  };

  const tools = new Map<string, AnyTool>();
  for (const [name, tool] of settings.tools) {
    tools.set(name, {
      ...tool,
      execute: (args, context) => {
        const span = toolSpans.get(context.toolCallId);
        const parent = span ? api.trace.setSpan(agentContext, span) : agentContext;
        return api.context.with(parent, () => tool.execute(args, context));
      },
    });
  }

  const onEvent = (event: AgentEvent<unknown>) => {
    switch (event.type) {
      case "tool-call": {
        const tool = settings.tools.get(event.toolName);
        toolSpans.set(
          event.toolCallId,
          start(
            `execute_tool ${event.toolName}`,
            SpanKind.INTERNAL,
            {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": event.toolName,
              "gen_ai.tool.call.id": event.toolCallId,
              "gen_ai.tool.type": "function",
              "gen_ai.tool.description": tool?.description,
              "gen_ai.tool.call.arguments": tracing.recordContent
                ? contentOfText(event.rawArguments, known)
                : undefined,
            },
            agentContext,
          ),
        );
        return;
      }
      case "approval-request":
      case "approval-result": {
        let span = approvalSpans.get(event.toolCallId);
        if (!span) {
          const toolSpan = toolSpans.get(event.toolCallId);
          const toolName =
            event.type === "approval-request" ? event.action.toolName : event.toolName;
          span = start(
            `await_approval ${toolName}`,
            SpanKind.INTERNAL,
            {
              "gen_ai.tool.name": toolName,
              "gen_ai.tool.call.id": event.toolCallId,
              "switchyard.approval.summary":
                tracing.recordContent && event.type === "approval-request"
                  ? redactText(event.action.description.summary, known)
                  : undefined,
            },
            toolSpan ? api.trace.setSpan(agentContext, toolSpan) : agentContext,
          );
          approvalSpans.set(event.toolCallId, span);
        }
        if (event.type === "approval-result") {
          const { approval } = event;
          span.setAttribute("switchyard.approval.outcome", approval.outcome);
          if (approval.outcome === "refused")
            span.setAttribute("switchyard.approval.code", approval.code);
          span.end();
          approvalSpans.delete(event.toolCallId);
        }
        return;
      }
      case "tool-result": {
        const record = event.toolCall;
        const span = toolSpans.get(record.toolCallId);
        if (!span) return;
        span.setAttribute("switchyard.tool_call.status", record.status);
        if (tracing.recordContent && record.content !== "") {
          span.setAttribute("gen_ai.tool.call.result", contentOfText(record.content, known));
        }
        if (failedCallStatuses.has(record.status)) {
          fail(span, "error" in record ? record.error : undefined, record.status);
        }
        span.end();
        toolSpans.delete(record.toolCallId);
        return;
      }
      case "finish": {
        const { result } = event;
        for (const settle of openChats) settle(undefined, result.error);
        for (const span of [...approvalSpans.values(), ...toolSpans.values()]) span.end();
        agentSpan.setAttribute("switchyard.run.status", result.status);
        agentSpan.setAttribute("gen_ai.usage.input_tokens", result.usage.promptTokens);
        agentSpan.setAttribute("gen_ai.usage.output_tokens", result.usage.completionTokens);
        if (result.runId !== undefined)
          agentSpan.setAttribute("gen_ai.conversation.id", result.runId);
        if (result.status === "failed" || result.status === "max_steps") {
          fail(agentSpan, result.error, result.error?.name ?? result.status);
        }
        agentSpan.end();
        return;
      }
      default:
        return;
    }
  };

  return {
    settings: { ...settings, model: tracedModel, tools },
    observe: (emit) => (event) => {
      onEvent(event);
      emit(event);
    },
  };
}

/** The attributes that have a value; OpenTelemetry drops `undefined` ones with a warning. */
function defined(
  attributes: Record<string, unknown>,
): Record<string, string | number | boolean | string[]> {
  const kept: Record<string, string | number | boolean | string[]> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null)
      kept[key] = value as string | number | boolean | string[];
  }
  return kept;
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
