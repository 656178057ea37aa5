import type { RunAgentInput } from "@ag-ui/core";
import type * as SchemasModule from "@ag-ui/core/schemas";
import { ConfigurationError } from "../errors/configuration-error.js";
import { loadOptionalPeer } from "../internal/load-optional-peer.js";
import { FileRunStore } from "../stores/file-run-store.js";
import { AgUiApprover } from "./ag-ui-approver.js";
import type { AgUiHandler, AgUiHandlerOptions } from "./ag-ui-handler-options.js";
import { eventStreamResponse } from "./event-stream-response.js";
import { readCappedBody } from "./read-capped-body.js";
import { serveRun } from "./serve-ag-ui-run.js";

const schemas = (neededBy: string) =>
  loadOptionalPeer<typeof SchemasModule>("@ag-ui/core/schemas", neededBy);

/**
 * Serves a Switchyard agent over AG-UI 1.0: POST a RunAgentInput, read the
 * run's events as server-sent events. A thread is a conversation the run
 * store holds: each user message starts a run that continues it, and the
 * person who started it owns it. A call that needs approval ends the
 * AG-UI run with RUN_FINISHED whose outcome is an interrupt per gated
 * action; the run itself waits in the run store, and the thread takes no
 * new message until they are answered. The next RunAgentInput's `resume`
 * entries answer them: each is checked against the stored run (an open
 * interrupt of this thread, not expired, the action as it was shown, an
 * answer it offered, answered once, by the person `authorize` names)
 * before anything is spent, and refused with RUN_ERROR otherwise. Messages
 * the client sends are never taken as history, tool results or approvals:
 * only the text of its last user message is read.
 *
 * @example
 * const handler = createAgUiHandler({
 *   agent: ({ approver, runStore }) => new Agent({ model, tools, approver, runStore }),
 *   authorize: async (request) => (await session(request))?.email,
 * });
 * export const POST = handler; // a Next.js route handler
 */
export function createAgUiHandler(options: AgUiHandlerOptions): AgUiHandler {
  const { agent } = options;
  const ready = typeof agent !== "function";
  if (ready && (options.approver === undefined || options.runStore === undefined)) {
    throw new ConfigurationError(
      "createAgUiHandler: with a ready agent, pass the approver and runStore it was built with (an AgUiApprover and a RunStore), or pass agent as a function ({ approver, runStore }) => new Agent({ ..., approver, runStore }).",
    );
  }
  if (options.approver !== undefined && !(options.approver instanceof AgUiApprover)) {
    throw new ConfigurationError("createAgUiHandler: approver must be an AgUiApprover.");
  }
  const { maxBodyBytes = 1_048_576 } = options;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new ConfigurationError(
      `createAgUiHandler: maxBodyBytes must be a whole number of bytes, at least 1 (e.g. 1_048_576 for 1 MiB); got ${String(maxBodyBytes)}.`,
    );
  }
  const { RunAgentInputSchema } = schemas("createAgUiHandler");
  const approver = options.approver ?? new AgUiApprover();
  const runStore = options.runStore ?? new FileRunStore();

  return async (request) => {
    if (request.method !== "POST") {
      return new Response("Send the RunAgentInput with POST.\n", {
        status: 405,
        headers: { allow: "POST", "content-type": "text/plain; charset=utf-8" },
      });
    }
    const body = await readCappedBody(request, maxBodyBytes);
    if (typeof body !== "string") return body;
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return badRequest("The request body is not JSON: send a RunAgentInput.");
    }
    const parsed = RunAgentInputSchema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 5)
        .map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`);
      return badRequest(`The request body is not a RunAgentInput: ${issues.join("; ")}.`);
    }
    const input = parsed.data as RunAgentInput;
    const openAgent = () => (ready ? agent : agent({ approver, runStore, request, input }));
    const run = (signal: AbortSignal) =>
      serveRun({ ...options, input, request, signal, approver, runStore, openAgent });
    return eventStreamResponse(run, request.signal);
  };
}

function badRequest(message: string): Response {
  return new Response(`${message}\n`, {
    status: 400,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}
