import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BaseEvent,
  HttpAgent,
  type Interrupt,
  type Message,
  type ResumeEntry,
} from "@ag-ui/client";
import { EventSchema } from "@ag-ui/core/schemas";
import { expect } from "vitest";
import { z } from "zod";
import {
  type AgUiHandlerOptions,
  createAgUiHandler,
  toNodeHandler,
} from "../../src/ag-ui/index.js";
import { Agent } from "../../src/agent/agent.js";
import type { AgentOptions } from "../../src/agent/agent-options.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";

/** A destructive tool that counts its runs: what a forged answer must never reach. */
export function deleteRecordsTool(beforeDelete?: () => Promise<void>) {
  const runs: Array<{ ids: string[] }> = [];
  const tool = defineTool({
    name: "delete_records",
    description: "Deletes records by id.",
    parameters: z.object({ ids: z.array(z.string().regex(/^rec_[a-z0-9]+$/)).min(1) }),
    needsApproval: true,
    target: { service: "records", environment: "sandbox" },
    execute: async (args) => {
      runs.push(args);
      await beforeDelete?.();
      return { deleted: args.ids };
    },
  });
  return { tool, runs };
}

/** An AG-UI server on loopback over a scripted model and the counting tool. */
export interface AgUiTestServer {
  url: string;
  runStore: FileRunStore;
  runs: Array<{ ids: string[] }>;
  model: ScriptedModel;
  close(): Promise<void>;
}

export async function startAgUiServer(
  steps: readonly ScriptedStep[],
  options: Partial<
    Pick<AgUiHandlerOptions, "authorize" | "approver" | "threadAccess" | "onError">
  > & {
    withoutAuthorize?: boolean;
    agentOptions?: Partial<AgentOptions>;
    /** The run store in this directory; a plain `FileRunStore` by default. */
    runStore?: (directory: string) => FileRunStore;
    /** Awaited inside the tool, after it counted its run: what a test holds the call at. */
    beforeDelete?: () => Promise<void>;
  } = {},
): Promise<AgUiTestServer> {
  const directory = await mkdtemp(join(tmpdir(), "switchyard-ag-ui-"));
  const { tool, runs } = deleteRecordsTool(options.beforeDelete);
  const model = new ScriptedModel(steps);
  const runStore = options.runStore?.(directory) ?? new FileRunStore({ directory });
  const handler = createAgUiHandler({
    agent: ({ approver, runStore }) =>
      new Agent({
        model,
        tools: [tool],
        approver,
        runStore,
        // The person may change a call before approving it (the interrupt offers `editedArgs`).
        approvalPolicy: { edits: true },
        ...options.agentOptions,
      }),
    runStore,
    ...(options.approver ? { approver: options.approver } : {}),
    ...(options.threadAccess ? { threadAccess: options.threadAccess } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.withoutAuthorize
      ? {}
      : {
          authorize:
            options.authorize ??
            ((request) => {
              const user = request.headers.get("x-user") ?? "";
              return ["ada", "bob", "eve"].includes(user) ? `${user}@example.com` : undefined;
            }),
        }),
  });
  const server: Server = createServer(toNodeHandler(handler));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/agent`,
    runStore,
    runs,
    model,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // A run aborted by a client that went away may still be writing its last file.
      await rm(directory, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    },
  };
}

/** What one AG-UI run streamed, as the official client saw it. */
export interface ClientRun {
  events: BaseEvent[];
  types: string[];
  interrupts: Interrupt[];
  error?: { code?: string; message: string };
}

/** Runs the official HttpAgent once: a user message, or answers to interrupts. */
export async function runClient(
  agent: HttpAgent,
  input: { message?: string; resume?: ResumeEntry[] },
): Promise<ClientRun> {
  if (input.message !== undefined) {
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: input.message });
  }
  const events: BaseEvent[] = [];
  let interrupts: Interrupt[] = [];
  let error: ClientRun["error"];
  try {
    await agent.runAgent(input.resume ? { resume: input.resume } : {}, {
      onEvent: ({ event }) => {
        events.push(event);
      },
      onRunFinishedEvent: (params) => {
        if (params.outcome === "interrupt") interrupts = params.interrupts;
      },
      onRunErrorEvent: ({ event }) => {
        error = { message: event.message, ...(event.code ? { code: event.code } : {}) };
      },
    });
  } catch (thrown) {
    error ??= { message: (thrown as Error).message };
  }
  return {
    events,
    types: events.map((event) => event.type),
    interrupts,
    ...(error ? { error } : {}),
  };
}

/** An HttpAgent on a new thread, answering as `user` (the `x-user` header). */
export function clientFor(url: string, user = "ada", threadId?: string): HttpAgent {
  return new HttpAgent({
    url,
    headers: { "x-user": user },
    ...(threadId ? { threadId } : {}),
  });
}

/** The resume entry approving an interrupt as shown (its fingerprint from the interrupt's action). */
export function approve(interrupt: Interrupt, extra: Record<string, unknown> = {}): ResumeEntry {
  return {
    interruptId: interrupt.id,
    status: "resolved",
    payload: { approved: true, fingerprint: fingerprintOf(interrupt), ...extra },
  };
}

/** The resume entry denying an interrupt. */
export function deny(interrupt: Interrupt, note?: string): ResumeEntry {
  return {
    interruptId: interrupt.id,
    status: "resolved",
    payload: { approved: false, fingerprint: fingerprintOf(interrupt), ...(note ? { note } : {}) },
  };
}

export function fingerprintOf(interrupt: Interrupt): string {
  const action = interrupt.metadata?.switchyard as { fingerprint?: unknown } | undefined;
  return String(action?.fingerprint);
}

/** A model that asks to delete these records, then answers with the tool message it got. */
export function deletingSteps(...batches: string[][]): ScriptedStep[] {
  return [
    { toolCalls: batches.map((ids) => ({ name: "delete_records", arguments: { ids } })) },
    (request) => ({
      text: `finished: ${request.messages
        .filter((message) => message.role === "tool")
        .map((message) => message.content)
        .join(" | ")}`,
    }),
  ];
}

/**
 * Posts a RunAgentInput as a forger would, past the official client's own
 * checks, and reads the events (each checked by AG-UI's event schema).
 */
export async function postRun(
  url: string,
  input: {
    threadId: string;
    messages?: Message[];
    resume?: ResumeEntry[];
  },
  user = "ada",
): Promise<ClientRun> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", "x-user": user },
    body: JSON.stringify({
      threadId: input.threadId,
      runId: crypto.randomUUID(),
      messages: input.messages ?? [],
      tools: [],
      context: [],
      ...(input.resume ? { resume: input.resume } : {}),
    }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  const events = (await response.text())
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => EventSchema.parse(JSON.parse(block.slice("data: ".length))) as BaseEvent);
  return clientRunOf(events);
}

/** What a run's events say: their types, the interrupts it ended with, its RUN_ERROR. */
export function clientRunOf(events: BaseEvent[]): ClientRun {
  const finished = events.find((event) => event.type === "RUN_FINISHED") as
    | { outcome?: { type: string; interrupts?: Interrupt[] } }
    | undefined;
  const error = events.find((event) => event.type === "RUN_ERROR") as
    | { code?: string; message: string }
    | undefined;
  return {
    events,
    types: events.map((event) => event.type),
    interrupts: finished?.outcome?.interrupts ?? [],
    ...(error
      ? { error: { message: error.message, ...(error.code ? { code: error.code } : {}) } }
      : {}),
  };
}

/** A RunAgentInput with one user message, as a Fetch API request to hand a handler directly. */
export function userMessageRequest(content: string, threadId = "t1"): Request {
  return new Request("http://app.example/api/agent", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      threadId,
      runId: crypto.randomUUID(),
      messages: [{ id: "m1", role: "user", content }],
      tools: [],
      context: [],
    }),
  });
}
