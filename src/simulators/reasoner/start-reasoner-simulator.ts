import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { knownModels } from "../../clients/reasoner/known-model.js";
import { ConfigurationError } from "../../errors/index.js";
import { buildCompletion } from "./build-completion.js";
import { buildStreamEvents } from "./build-stream-events.js";
import { completionHeader } from "./completion-parts.js";
import { parseJson, readBody, recordOf } from "./read-request.js";
import { reasonerScenarios } from "./reasoner-scenarios.js";
import type {
  ReasonerFault,
  ReasonerSimulator,
  ReasonerSimulatorOptions,
  RecordedReasonerRequest,
} from "./reasoner-simulator-options.js";
import { UnanswerableRequestError } from "./schema-answers.js";
import type { ReceivedChatRequest, ScenarioContext, ScenarioFunction } from "./scripted-answer.js";
import { midStreamErrorBody, sendError, sendFault, sendJson } from "./send-response.js";
import { type ShapedAnswer, shapeAnswer } from "./shape-answer.js";
import { resolveStreamStyle, type StreamStyle } from "./stream-style.js";
import { validateChatRequest } from "./validate-chat-request.js";
import { writeSse } from "./write-sse.js";

interface QueuedFault {
  fault: ReasonerFault;
  remaining: number;
}

interface Settings {
  apiKey: string;
  scenario: ScenarioFunction;
  /** A built-in scenario: its final answers take the JSON `response_format` asks for. */
  honourResponseFormat: boolean;
  style: StreamStyle;
  delayMs: number;
  burst: boolean;
  context: ScenarioContext;
  record: RecordedReasonerRequest[] | undefined;
  faults: QueuedFault[];
}

/** Where chat completions are served, and the model list beside them. */
const chatPath = "/v1/chat/completions";
const modelsPath = "/v1/models";
/** When the listed models were "created": a fixed time, so the list does not change. */
const modelsCreated = 1_767_225_600;

/**
 * Starts an OpenAI-compatible reasoning service on loopback that plays a
 * scripted model (docs/contract.md §1): it checks the bearer key and every request
 * parameter, answers plainly or as SSE chunks, echoes the preferred
 * provider, and can fail on demand. Like a model constrained by the
 * request, a built-in scenario's final answer is JSON that the
 * `response_format` schema accepts (generated from it), and a forced
 * `tool_choice` calls its function with arguments the parameters schema
 * accepts. Chat completions are served at `POST /v1/chat/completions` and
 * the known models listed at `GET /v1/models`; any other path is answered
 * 404.
 *
 * @example
 * ```ts
 * const reasoner = await startReasonerSimulator({ scenario: "callback-cleanup" });
 * // point the reasoner client at reasoner.url with reasoner.apiKey
 * reasoner.failNext({ status: 429, headers: { "retry-after": "1" } });
 * await reasoner.close();
 * ```
 */
export async function startReasonerSimulator(
  options: ReasonerSimulatorOptions = {},
): Promise<ReasonerSimulator> {
  const scenario = resolveScenario(options.scenario);
  const settings: Settings = {
    apiKey: options.apiKey ?? `sk-sim-${randomBytes(16).toString("hex")}`,
    scenario,
    honourResponseFormat: typeof options.scenario !== "function",
    style: resolveStreamStyle(options.chunking),
    delayMs: Math.max(0, options.chunkDelayMs ?? 0),
    burst: resolvePacing(options.streamPacing) === "burst",
    context: { longStreamChunks: options.longStreamChunks ?? 1000 },
    record: options.recordRequests === false ? undefined : [],
    faults: [],
  };
  const server = createServer((request, response) => {
    handle(request, response, settings).catch((error: unknown) => {
      if (!response.headersSent) {
        sendError(
          response,
          500,
          "server_error",
          "simulator_failed",
          `The simulator failed: ${String(error)}`,
        );
      } else {
        response.destroy();
      }
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: options.port ?? 0, host, backlog: 4096 }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostInUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostInUrl}:${address.port}${chatPath}`,
    apiKey: settings.apiKey,
    requests: settings.record ?? [],
    failNext(fault) {
      if (fault.status === undefined && fault.midStreamError === undefined) {
        throw new ConfigurationError("failNext needs a status (e.g. 429) or a midStreamError.");
      }
      if (
        fault.status !== undefined &&
        !(Number.isInteger(fault.status) && fault.status >= 100 && fault.status <= 599)
      ) {
        throw new ConfigurationError(
          `failNext status must be an HTTP status 100..599; got ${fault.status}.`,
        );
      }
      settings.faults.push({ fault, remaining: Math.max(1, fault.times ?? 1) });
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

function resolveScenario(scenario: ReasonerSimulatorOptions["scenario"]): ScenarioFunction {
  if (typeof scenario === "function") return scenario;
  const found = reasonerScenarios[scenario ?? "auto"];
  if (!found) {
    throw new ConfigurationError(
      `Unknown scenario "${scenario}"; use one of ${Object.keys(reasonerScenarios).join(", ")} or a function.`,
    );
  }
  return found;
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  settings: Settings,
): Promise<void> {
  response.setHeader("x-request-id", `req_${randomBytes(8).toString("hex")}`);
  const text = await readBody(request);
  if (text === undefined) {
    sendError(
      response,
      413,
      "invalid_request_error",
      "request_too_large",
      "The request body is larger than 16 MB.",
    );
    return;
  }
  const parsed = parseJson(text);
  settings.record?.push(recordOf(request, text, parsed));

  const path = (request.url ?? "").split("?")[0] ?? "";
  if (path !== chatPath && path !== modelsPath) {
    const shown = path.length > 200 ? `${path.slice(0, 200)}...` : path;
    const message = `Unknown path ${request.method} ${shown}: this simulator serves chat completions at POST ${chatPath} and its models at GET ${modelsPath}.`;
    sendError(response, 404, "invalid_request_error", "unknown_url", message);
    return;
  }
  const method = path === chatPath ? "POST" : "GET";
  if (request.method !== method) {
    response.setHeader("allow", method);
    const message = `${request.method} is not allowed on ${path}; use ${method}.`;
    sendError(response, 405, "invalid_request_error", "method_not_allowed", message);
    return;
  }
  if (!authorized(request, response, settings)) return;
  if (path === modelsPath) {
    sendJson(response, 200, {
      object: "list",
      data: knownModels.map((id) => ({
        id,
        object: "model",
        created: modelsCreated,
        owned_by: id.includes("/") ? id.slice(0, id.indexOf("/")) : "switchyard-simulator",
      })),
    });
    return;
  }

  const queued = settings.faults[0];
  if (queued && queued.fault.midStreamError === undefined) {
    takeFault(settings);
    sendFault(response, queued.fault);
    return;
  }

  const contentType = request.headers["content-type"] ?? "";
  if (!/^application\/json\b/i.test(contentType)) {
    const message = `Content-Type must be application/json; got "${contentType || "nothing"}".`;
    sendError(response, 400, "invalid_request_error", "unsupported_content_type", message);
    return;
  }
  if (!parsed.ok) {
    const message = `The body is not valid JSON (${parsed.error}). Send a JSON object.`;
    sendError(response, 400, "invalid_request_error", "invalid_json", message);
    return;
  }
  const problem = validateChatRequest(parsed.value);
  if (problem) {
    sendJson(response, 400, { error: { ...problem, type: "invalid_request_error" } });
    return;
  }
  const body = parsed.value as ReceivedChatRequest;
  const midStream = queued?.fault.midStreamError ? takeFault(settings) : undefined;

  const choices = body.n ?? 1;
  const answers: ShapedAnswer[] = [];
  for (let index = 0; index < choices; index++) {
    try {
      const answer = await settings.scenario(body, settings.context);
      answers.push(shapeAnswer(answer, body, settings));
    } catch (error) {
      if (error instanceof UnanswerableRequestError) {
        sendJson(response, 400, { error: { ...error.problem, type: "invalid_request_error" } });
        return;
      }
      const message = `The scenario failed: ${error instanceof Error ? error.message : String(error)}`;
      sendError(response, 500, "server_error", "scenario_failed", message);
      return;
    }
  }
  const header = completionHeader(body);

  if (body.stream !== true) {
    if (midStream?.midStreamError === "cut") {
      request.socket.destroy();
    } else if (midStream) {
      sendJson(response, 200, midStream.body ?? midStreamErrorBody());
    } else {
      sendJson(response, 200, buildCompletion(header, body, answers, settings.style));
    }
    return;
  }
  const { events, firstFinish } = buildStreamEvents(header, body, answers, settings.style);
  const writeOptions = settings.style.bytesPerWrite
    ? {
        delayMs: settings.delayMs,
        bytesPerWrite: settings.style.bytesPerWrite,
        burst: settings.burst,
      }
    : { delayMs: settings.delayMs, burst: settings.burst };
  if (!midStream) {
    await writeSse(response, events, writeOptions);
    return;
  }
  // Fail halfway to the finish chunk, after at least the role chunk.
  const failAt = Math.max(2, Math.floor(firstFinish / 2));
  const sent = events.slice(0, Math.min(failAt, firstFinish));
  const end = settings.style.lineEnd;
  const error = JSON.stringify(midStream.body ?? midStreamErrorBody());
  if (midStream.midStreamError === "error-event")
    sent.push(`event: error${end}data: ${error}${end}${end}`);
  if (midStream.midStreamError === "error-data") {
    sent.push(`data: ${error}${end}${end}`, `data: [DONE]${end}${end}`);
  }
  await writeSse(response, sent, { ...writeOptions, cut: midStream.midStreamError === "cut" });
}

/** Checks the bearer key; answers 401 and returns false when it is missing or wrong. */
function authorized(
  request: IncomingMessage,
  response: ServerResponse,
  settings: Settings,
): boolean {
  const authorization = request.headers.authorization;
  if (!authorization) {
    const message = "No API key provided: send the header Authorization: Bearer <API key>.";
    sendError(response, 401, "authentication_error", "missing_api_key", message);
    return false;
  }
  const match = /^bearer\s+(\S.*)$/i.exec(authorization.trim());
  if (!match || match[1] !== settings.apiKey) {
    sendError(
      response,
      401,
      "authentication_error",
      "invalid_api_key",
      "Incorrect API key provided.",
    );
    return false;
  }
  return true;
}

function resolvePacing(pacing: ReasonerSimulatorOptions["streamPacing"]): "paced" | "burst" {
  if (pacing === undefined || pacing === "paced" || pacing === "burst") return pacing ?? "paced";
  throw new ConfigurationError(`Unknown streamPacing "${String(pacing)}"; use "paced" or "burst".`);
}

function takeFault(settings: Settings): ReasonerFault | undefined {
  const queued = settings.faults[0];
  if (!queued) return undefined;
  queued.remaining--;
  if (queued.remaining <= 0) settings.faults.shift();
  return queued.fault;
}
