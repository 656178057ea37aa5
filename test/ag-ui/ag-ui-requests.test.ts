import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventSchema } from "@ag-ui/core/schemas";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type AgUiAgentContext, AgUiApprover, createAgUiHandler } from "../../src/ag-ui/index.js";
import { Agent } from "../../src/agent/agent.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { deleteRecordsTool, deletingSteps, postRun, startAgUiServer } from "./ag-ui-server.js";

let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

/** A handler over a ready agent, called as a Next.js route or Hono would: with a Fetch Request. */
async function readyHandler() {
  directory = await mkdtemp(join(tmpdir(), "switchyard-ag-ui-"));
  const { tool, runs } = deleteRecordsTool();
  const approver = new AgUiApprover();
  const runStore = new FileRunStore({ directory });
  const agent = new Agent({
    model: new ScriptedModel(deletingSteps(["rec_a"])),
    tools: [tool],
    approver,
    runStore,
  });
  const handler = createAgUiHandler({ agent, approver, runStore, authorize: () => "ada" });
  return { handler, runs };
}

const post = (body: string, headers: Record<string, string> = {}) =>
  new Request("http://app.example/api/agent", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });

const input = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ threadId: "t1", runId: "r1", messages: [], tools: [], context: [], ...extra });

async function eventsOf(response: Response) {
  return (await response.text())
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => EventSchema.parse(JSON.parse(block.slice(6))));
}

describe("createAgUiHandler as a Fetch API handler", () => {
  it("serves a ready agent built with the handler's approver and run store", async () => {
    const { handler, runs } = await readyHandler();
    const response = await handler(
      post(input({ messages: [{ id: "m1", role: "user", content: "Delete rec_a" }] })),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = await eventsOf(response);
    const finished = events.at(-1) as { type: string; outcome?: { type: string } };
    expect(finished).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "interrupt" } });
    expect(runs).toEqual([]);
  });

  it("refuses a ready agent without its approver and run store, naming what to pass", () => {
    const agent = new Agent({ model: new ScriptedModel([]), tools: [] });
    expect(() => createAgUiHandler({ agent })).toThrow(ConfigurationError);
    expect(() => createAgUiHandler({ agent })).toThrow(/pass the approver and runStore/);
  });

  it("refuses a maxBodyBytes that is not a whole number of bytes from 1, saying what is allowed", () => {
    const agent = ({ approver, runStore }: AgUiAgentContext) =>
      new Agent({ model: new ScriptedModel([]), tools: [], approver, runStore });
    for (const maxBodyBytes of [Number.NaN, -1, 0, 1.5, Number.POSITIVE_INFINITY]) {
      expect(() => createAgUiHandler({ agent, maxBodyBytes })).toThrow(ConfigurationError);
      expect(() => createAgUiHandler({ agent, maxBodyBytes })).toThrow(
        `maxBodyBytes must be a whole number of bytes, at least 1 (e.g. 1_048_576 for 1 MiB); got ${maxBodyBytes}.`,
      );
    }
    expect(() => createAgUiHandler({ agent, maxBodyBytes: 1 })).not.toThrow();
  });

  it("refuses an AgUiApprover timeoutMs beyond a year, saying what is allowed", () => {
    const year = 365 * 86_400_000;
    for (const timeoutMs of [year + 1, 8.7e15, Number.MAX_SAFE_INTEGER]) {
      expect(() => new AgUiApprover({ timeoutMs })).toThrow(ConfigurationError);
      expect(() => new AgUiApprover({ timeoutMs })).toThrow(
        `timeoutMs must be a whole number of milliseconds, from 1000 to ${year} (a year;`,
      );
    }
    expect(() => new AgUiApprover({ timeoutMs: year })).not.toThrow();
  });

  it("refuses a name from authorize longer than 200 characters instead of cutting it (two names cut alike would read as one owner)", async () => {
    const failures: Array<{ code: string; error?: Error | undefined }> = [];
    const server = await startAgUiServer(deletingSteps(["rec_a"]), {
      authorize: (request) => `${"x".repeat(200)}-${request.headers.get("x-user")}`,
      onError: (failure) => {
        failures.push(failure);
      },
    });
    const threadId = crypto.randomUUID();
    const ada = await postRun(
      server.url,
      { threadId, messages: [{ id: "a1", role: "user", content: "Delete rec_a" }] },
      "ada",
    );
    expect(ada.error?.code).toBe("internal_error");
    expect(ada.interrupts).toEqual([]);
    expect(failures[0]?.error).toBeInstanceOf(ConfigurationError);
    expect(failures[0]?.error?.message).toBe(
      "authorize named a person with 204 characters; a name is at most 200: name people by a shorter id (a user id or an email address).",
    );
    expect(server.runs).toEqual([]);
    await server.close();
  });

  it("answers bad requests with a status and a line saying what was wrong", async () => {
    const { handler } = await readyHandler();
    const get = await handler(new Request("http://app.example/api/agent"));
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");

    const notJson = await handler(post("{"));
    expect(notJson.status).toBe(400);
    expect(await notJson.text()).toContain("not JSON");

    const notInput = await handler(post(JSON.stringify({ threadId: 7 })));
    expect(notInput.status).toBe(400);
    expect(await notInput.text()).toMatch(/not a RunAgentInput: threadId/);

    const huge = await handler(post(input({ forwardedProps: "x".repeat(1_100_000) })));
    expect(huge.status).toBe(413);
  });

  it("ends a run with no user message in RUN_ERROR", async () => {
    const { handler, runs } = await readyHandler();
    const events = await eventsOf(await handler(post(input())));
    expect(events.map((event) => event.type)).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(events[1]).toMatchObject({ code: "no_user_message" });
    expect(runs).toEqual([]);
  });
});

describe("a client that goes away", () => {
  it("stops the run it started: the run ends aborted in the run store", async () => {
    let asked!: () => void;
    const modelAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const server = await startAgUiServer([
      () => {
        asked();
        // A model that never answers; the run's signal is what ends the wait.
        return new Promise<never>(() => {});
      },
    ]);
    try {
      const client = new AbortController();
      const response = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-user": "ada" },
        body: input({ messages: [{ id: "m1", role: "user", content: "Delete rec_a" }] }),
        signal: client.signal,
      });
      expect(response.status).toBe(200);
      await modelAsked;
      client.abort();
      await vi.waitFor(
        async () => {
          const { runs } = await server.runStore.list();
          expect(runs.map((run) => run.status)).toEqual(["aborted"]);
        },
        { timeout: 20_000, interval: 50 },
      );
      expect(server.runs).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
