import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { BaseEvent, Interrupt, Message, ResumeEntry } from "@ag-ui/client";
import { type ClientRun, clientRunOf } from "../ag-ui/ag-ui-server.js";

/**
 * The parts of CopilotKit these tests use, as its packages export them
 * (test/copilotkit/fixture/copilotkit.mjs). CopilotKit is installed in that
 * fixture package of its own, never in the library's dependencies, so its
 * types are not the library's to check: these are written out here.
 */
export interface CopilotKitModules {
  /** `@ag-ui/client` 0.0.59, the one CopilotKit's runtime is built on. */
  HttpAgent: new (config: {
    url: string;
  }) => object;
  /** `@copilotkit/runtime/v2`. */
  CopilotRuntime: new (options: {
    agents: Record<string, object>;
  }) => object;
  /** `@copilotkit/runtime/v2/node`. */
  createCopilotNodeListener(options: {
    runtime: object;
    basePath: string;
    activateChannels: false;
    hooks?: RuntimeHooks;
  }): (request: IncomingMessage, response: ServerResponse) => Promise<void>;
  /** `@copilotkit/core`: what a CopilotKit front end (its React provider included) runs on. */
  CopilotKitCore: new (config: {
    runtimeUrl: string;
    headers: Record<string, string>;
  }) => {
    runAgent(params: { agent: FrontEndAgent; resume?: ResumeEntry[] }): Promise<unknown>;
    connectAgent(params: { agent: FrontEndAgent }): Promise<unknown>;
  };
  /** `@copilotkit/core`: the front end's agent, which talks to the runtime's `/agent/:id/*` routes. */
  ProxiedCopilotRuntimeAgent: new (config: {
    runtimeUrl: string;
    agentId: string;
    headers: Record<string, string>;
    runtimeMode: "sse";
    transport: "rest";
    fetch: typeof fetch;
    threadId?: string;
  }) => FrontEndAgent;
}

/** CopilotKit's runtime hooks: `onBeforeHandler` sees each request's route and may throw a Response. */
export interface RuntimeHooks {
  onBeforeHandler?(context: {
    request: Request;
    route: { method: string; threadId?: string };
  }): void | Promise<void>;
}

/** The front end's agent for one thread, as CopilotKit keeps it. */
export interface FrontEndAgent {
  threadId: string;
  messages: Message[];
  pendingInterrupts: Interrupt[];
  addMessage(message: Message): void;
  /** CopilotKit's stop: asks the runtime to stop the thread's run. */
  abortRun(): void;
  subscribe(subscriber: {
    onEvent?(parameters: { event: BaseEvent }): void;
    onRunFailed?(parameters: { error: Error }): void;
  }): { unsubscribe(): void };
}

const fixture = fileURLToPath(new URL("./fixture/", import.meta.url));

/**
 * Loads CopilotKit from the fixture package. `npm test` installs it first
 * (scripts/install-copilotkit-fixture.sh); CopilotKit's telemetry is off, as
 * nothing here may reach out past this machine.
 */
export async function loadCopilotKit(): Promise<CopilotKitModules> {
  if (!existsSync(`${fixture}node_modules/@copilotkit/runtime/package.json`)) {
    throw new Error(
      "CopilotKit is not installed for test/copilotkit: run `bash scripts/install-copilotkit-fixture.sh` (npm test runs it first).",
    );
  }
  process.env.COPILOTKIT_TELEMETRY_DISABLED = "true";
  process.env.DO_NOT_TRACK = "1";
  const modules = `${fixture}copilotkit.mjs`;
  return (await import(modules)) as CopilotKitModules;
}

/** CopilotKit's runtime on loopback, with the Switchyard handler as its agent `switchyard`. */
export interface CopilotKitRuntime {
  /** What a front end is given as `runtimeUrl`. */
  runtimeUrl: string;
  close(): Promise<void>;
}

/**
 * Starts CopilotKit's own runtime (`CopilotRuntime`, its Node listener) in
 * front of an AG-UI handler at `agentUrl`, registered as a remote AG-UI
 * agent: CopilotKit's `HttpAgent` pointed at the handler, as its docs set up
 * any AG-UI server.
 */
export async function startCopilotKitRuntime(
  copilotKit: CopilotKitModules,
  agentUrl: string,
  hooks?: RuntimeHooks,
): Promise<CopilotKitRuntime> {
  const runtime = new copilotKit.CopilotRuntime({
    agents: { switchyard: new copilotKit.HttpAgent({ url: agentUrl }) },
  });
  const listener = copilotKit.createCopilotNodeListener({
    runtime,
    basePath: "/api/copilotkit",
    activateChannels: false,
    ...(hooks ? { hooks } : {}),
  });
  const server: Server = createServer((request, response) => void listener(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    runtimeUrl: `http://127.0.0.1:${port}/api/copilotkit`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One person's CopilotKit front end on one thread, whose connection a test can cut. */
export interface FrontEnd {
  agent: FrontEndAgent;
  /** Sends a user message, or answers to the open interrupts, through CopilotKit's core. */
  send(input: { message?: string; resume?: ResumeEntry[] }): Promise<FrontEndRun>;
  /** Joins the thread again as a reopened page does (`/connect`): what the runtime replays. */
  reconnect(): Promise<FrontEndRun>;
  /**
   * Resolves once the runtime has answered the page's latest request with its
   * headers. CopilotKit's client reports a drop after that as a run that ended
   * `abort`; a drop before it ends the run with no event at all.
   */
  responded(): Promise<void>;
  /** Cuts the requests in flight, as a network failure or a closed tab does. */
  drop(): void;
}

/** What one run streamed to the front end. */
export interface FrontEndRun extends ClientRun {
  /** Why the run failed on the front end's side, when it did (its connection cut). */
  failed?: string;
}

/** A front end for `user` (the `x-user` header the runtime forwards to the handler). */
export function frontEndFor(
  copilotKit: CopilotKitModules,
  runtimeUrl: string,
  user: string,
  threadId?: string,
): FrontEnd {
  let connection = new AbortController();
  let latest: Promise<unknown> = Promise.resolve();
  const droppable: typeof fetch = (input, init) => {
    const signals = [connection.signal, ...(init?.signal ? [init.signal] : [])];
    const response = fetch(input, { ...init, signal: AbortSignal.any(signals) });
    latest = response.catch(() => undefined);
    return response;
  };
  const core = new copilotKit.CopilotKitCore({ runtimeUrl, headers: {} });
  const agent = new copilotKit.ProxiedCopilotRuntimeAgent({
    runtimeUrl,
    agentId: "switchyard",
    headers: { "x-user": user },
    runtimeMode: "sse",
    transport: "rest",
    fetch: droppable,
    ...(threadId ? { threadId } : {}),
  });
  const observe = async (run: () => Promise<unknown>): Promise<FrontEndRun> => {
    const events: BaseEvent[] = [];
    let failed: string | undefined;
    const subscription = agent.subscribe({
      onEvent: ({ event }) => {
        events.push(event);
      },
      onRunFailed: ({ error }) => {
        failed = error.message;
      },
    });
    try {
      await run();
    } catch (thrown) {
      failed ??= (thrown as Error).message;
    } finally {
      subscription.unsubscribe();
    }
    return { ...clientRunOf(events), ...(failed !== undefined ? { failed } : {}) };
  };
  return {
    agent,
    send: (input) => {
      if (input.message !== undefined) {
        agent.addMessage({ id: crypto.randomUUID(), role: "user", content: input.message });
      }
      return observe(() =>
        core.runAgent({ agent, ...(input.resume ? { resume: input.resume } : {}) }),
      );
    },
    reconnect: () => observe(() => core.connectAgent({ agent })),
    responded: async () => {
      await latest;
    },
    drop: () => {
      connection.abort();
      connection = new AbortController();
    },
  };
}
