import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { type AgUiHandlerOptions, createAgUiHandler } from "../../src/ag-ui/index.js";
import { threadRunId } from "../../src/ag-ui/thread-runs.js";
import { Agent } from "../../src/agent/agent.js";
import { RunStoreError } from "../../src/agent/durable/durable-errors.js";
import { ReasonerClient } from "../../src/clients/reasoner/reasoner-client.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { captureLogger } from "../helpers/capture-logger.js";
import {
  type AgUiTestServer,
  approve,
  clientFor,
  postRun,
  runClient,
  startAgUiServer,
  userMessageRequest,
} from "./ag-ui-server.js";

let server: AgUiTestServer | undefined;
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const close of closing.splice(0)) await close();
});

describe("an AG-UI thread belongs to the person who started it", () => {
  it("two people on two threads each go on with their own conversation; a third person can neither write to nor answer on either", async () => {
    server = await startAgUiServer([
      { toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_ada"] } }] },
      { toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_bob"] } }] },
      { text: "Deleted rec_ada." },
      { text: "Deleted rec_bob." },
      (request) => ({
        text: `first words: ${request.messages.find((message) => message.role === "user")?.content}`,
      }),
      (request) => ({
        text: `first words: ${request.messages.find((message) => message.role === "user")?.content}`,
      }),
    ]);
    const ada = clientFor(server.url, "ada");
    const bob = clientFor(server.url, "bob");
    const adaAsked = await runClient(ada, { message: "Ada: delete rec_ada" });
    const bobAsked = await runClient(bob, { message: "Bob: delete rec_bob" });

    // Eve is someone authorize() names, but neither thread is hers.
    for (const [client, asked] of [
      [ada, adaAsked],
      [bob, bobAsked],
    ] as const) {
      const write = await postRun(
        server.url,
        {
          threadId: client.threadId,
          messages: [{ id: "e1", role: "user", content: "Eve: delete everything" }],
        },
        "eve",
      );
      expect(write.error?.code).toBe("not_thread_owner");
      const answer = await postRun(
        server.url,
        { threadId: client.threadId, resume: [approve(asked.interrupts[0]!)] },
        "eve",
      );
      expect(answer.error?.code).toBe("not_thread_owner");
    }
    // Nor may one owner answer the other's question.
    const crossed = await postRun(
      server.url,
      { threadId: ada.threadId, resume: [approve(adaAsked.interrupts[0]!)] },
      "bob",
    );
    expect(crossed.error?.code).toBe("not_thread_owner");
    expect(server.runs).toEqual([]);
    expect(server.model.requests).toHaveLength(2);

    expect(
      (await runClient(ada, { resume: [approve(adaAsked.interrupts[0]!)] })).error,
    ).toBeUndefined();
    expect(
      (await runClient(bob, { resume: [approve(bobAsked.interrupts[0]!)] })).error,
    ).toBeUndefined();
    expect(server.runs).toEqual([{ ids: ["rec_ada"] }, { ids: ["rec_bob"] }]);
    const adaAgain = await runClient(ada, { message: "What did I say first?" });
    const bobAgain = await runClient(bob, { message: "What did I say first?" });
    expect(adaAgain.error).toBeUndefined();
    expect(bobAgain.error).toBeUndefined();
    expect(ada.messages.at(-1)?.content).toBe("first words: Ada: delete rec_ada");
    expect(bob.messages.at(-1)?.content).toBe("first words: Bob: delete rec_bob");
    // The approvals are recorded under their owners' names.
    for (const [asked, person] of [
      [adaAsked, "ada@example.com"],
      [bobAsked, "bob@example.com"],
    ] as const) {
      const id = asked.interrupts[0]!.id;
      const state = await server.runStore.load(id.slice(0, id.lastIndexOf(".")));
      expect(state.finishedCalls?.[0]?.approval?.approvedBy).toBe(person);
    }
  });

  it("a thread whose oldest runs were pruned stays its owner's: nobody else takes it over or answers its open question", async () => {
    server = await startAgUiServer([
      { text: "Hello Ada." },
      { text: "Noted." },
      { toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_ada"] } }] },
      { text: "Deleted rec_ada." },
      (request) => ({
        text: `first words kept: ${request.messages.find((message) => message.role === "user")?.content}`,
      }),
    ]);
    const ada = clientFor(server.url, "ada");
    await runClient(ada, { message: "one" });
    await runClient(ada, { message: "two" });
    const asked = await runClient(ada, { message: "delete rec_ada" });
    expect(asked.interrupts).toHaveLength(1);
    // `runs prune --older-than` deletes a thread's oldest runs first.
    expect(await server.runStore.delete(threadRunId(ada.threadId, 1))).toBe(true);
    expect(await server.runStore.delete(threadRunId(ada.threadId, 2))).toBe(true);

    const bobWrites = await postRun(
      server.url,
      { threadId: ada.threadId, messages: [{ id: "b1", role: "user", content: "mine now" }] },
      "bob",
    );
    expect(bobWrites.error?.code).toBe("not_thread_owner");
    const bobAnswers = await postRun(
      server.url,
      { threadId: ada.threadId, resume: [approve(asked.interrupts[0]!)] },
      "bob",
    );
    expect(bobAnswers.error?.code).toBe("not_thread_owner");
    expect(server.runs).toEqual([]);
    // Ada's own message is refused only because her question is open; her answer is taken.
    const adaWrites = await postRun(
      server.url,
      { threadId: ada.threadId, messages: [{ id: "a4", role: "user", content: "hello?" }] },
      "ada",
    );
    expect(adaWrites.error?.code).toBe("interrupt_open");
    expect(
      (await runClient(ada, { resume: [approve(asked.interrupts[0]!)] })).error,
    ).toBeUndefined();
    expect(server.runs).toEqual([{ ids: ["rec_ada"] }]);
    // The thread goes on from its latest surviving run, as turn 4: each run holds the whole conversation.
    const goesOn = await runClient(ada, { message: "What is left?" });
    expect(goesOn.error).toBeUndefined();
    expect(ada.messages.at(-1)?.content).toBe("first words kept: one");
    const fourth = await server.runStore.load(threadRunId(ada.threadId, 4));
    expect(fourth.metadata?.agUiThreadOwner).toBe("ada@example.com");
  });

  it("threadAccess lets the application admit someone else to a thread", async () => {
    server = await startAgUiServer(
      [{ toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_a"] } }] }, { text: "ok" }],
      {
        threadAccess: (person, thread) =>
          person === "bob@example.com" && thread.owner === "ada@example.com",
      },
    );
    const ada = clientFor(server.url, "ada");
    const asked = await runClient(ada, { message: "Delete rec_a" });
    const byBob = await postRun(
      server.url,
      { threadId: ada.threadId, resume: [approve(asked.interrupts[0]!)] },
      "bob",
    );
    expect(byBob.error).toBeUndefined();
    expect(server.runs).toEqual([{ ids: ["rec_a"] }]);
  });
});

/** A model service that answers every request with this status, at an address a browser must never see. */
async function failingModelService(status: number): Promise<string> {
  const service: Server = createServer((_request, response) => {
    response.writeHead(status, { "content-type": "application/json", "retry-after": "0" });
    response.end(JSON.stringify({ error: { message: `internal-llm-7 says ${status}` } }));
  });
  await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
  closing.push(
    () =>
      new Promise<void>((resolve) => {
        service.closeAllConnections();
        service.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(service.address() as AddressInfo).port}/internal-llm/v1/chat/completions`;
}

/** An address where nothing listens any more. */
async function deadModelService(): Promise<string> {
  const url = await failingModelService(200);
  await closing.pop()?.();
  return url;
}

describe("a model failure reaches an AG-UI client as a code of its own, in words for a person", () => {
  it.each([
    [401, "model_unauthorized"],
    [429, "model_rate_limited"],
    [503, "model_unavailable"],
    [0, "model_unreachable"],
  ])(
    "model service answering %i: %s, logged on the server and told to onError",
    async (status, code) => {
      const url = status === 0 ? await deadModelService() : await failingModelService(status);
      const { logger, text } = captureLogger("info");
      const failures: Array<Parameters<NonNullable<AgUiHandlerOptions["onError"]>>[0]> = [];
      server = await startAgUiServer([], {
        agentOptions: {
          model: new ReasonerClient({ url, apiKey: "sk-test-key-0123456789", maxRetries: 0 }),
          logger,
        },
        onError: (failure) => {
          failures.push(failure);
        },
      });
      const client = clientFor(server.url);
      const run = await runClient(client, { message: "Hello" });

      expect(run.error?.code).toBe(code);
      const told = JSON.stringify(run.events);
      for (const internal of ["127.0.0.1", "internal-llm", new URL(url).port, "sk-test-key"]) {
        expect(told).not.toContain(internal);
      }
      expect(run.error?.message).toMatch(/^[A-Z][^{}<>]+\.$/);
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ code, threadId: client.threadId });
      expect(failures[0]?.error).toBeInstanceOf(Error);
      const logged = text();
      expect(logged).toContain(`AG-UI run ended ${code}`);
      expect(logged).toContain(client.threadId);
      expect(logged).not.toContain("sk-test-key");
    },
  );
});

/** A file run store whose every read (a load, a listing) rejects with `error`. */
async function storeFailingWith(error: Error): Promise<FileRunStore> {
  const directory = await mkdtemp(join(tmpdir(), "switchyard-ag-ui-"));
  closing.push(() => rm(directory, { recursive: true, force: true }));
  const files = new FileRunStore({ directory });
  return Object.assign(Object.create(files) as FileRunStore, {
    load: () => Promise.reject(error),
    list: () => Promise.reject(error),
  });
}

describe("onError", () => {
  it("gets the error with the agent's secrets removed, its message, stack and cause included", async () => {
    const secret = "plain-store-secret-5bd0c7e1a9";
    // A store whose error repeats the password it was given.
    const runStore = await storeFailingWith(
      new RunStoreError(
        { operation: "load", message: `login failed for password ${secret}` },
        { cause: new Error(`server saw ${secret}`) },
      ),
    );
    const failures: Array<Parameters<NonNullable<AgUiHandlerOptions["onError"]>>[0]> = [];
    const handler = createAgUiHandler({
      agent: ({ approver, runStore }) =>
        new Agent({ model: new ScriptedModel([]), approver, runStore, secrets: [secret] }),
      runStore,
      authorize: () => "ada",
      onError: (failure) => {
        failures.push(failure);
      },
    });
    const told = await (await handler(userMessageRequest("Hello"))).text();
    expect(told).toContain('"code":"internal_error"');
    expect(failures).toHaveLength(1);
    const error = failures[0]?.error;
    expect(error).toBeInstanceOf(RunStoreError);
    expect(error?.message).toContain("login failed for password [redacted]");
    const everything = inspect(error, { depth: 10, showHidden: true });
    expect(everything).toContain("server saw [redacted]");
    expect(everything).not.toContain(secret);
  });
});

describe("a request that fails on the server", () => {
  it("is internal_error for the client, without the store's address, and logged through the agent's logger", async () => {
    // A store that cannot be reached: its error names where it lives.
    const runStore = await storeFailingWith(
      new RunStoreError({ operation: "load", message: "could not reach db.internal.example:5432" }),
    );
    const { logger, text } = captureLogger("info");
    const failures: string[] = [];
    const handler = createAgUiHandler({
      agent: ({ approver, runStore }) =>
        new Agent({ model: new ScriptedModel([]), approver, runStore, logger }),
      runStore,
      authorize: () => "ada",
      onError: (failure) => {
        failures.push(failure.code);
      },
    });
    const response = await handler(userMessageRequest("Hello"));
    const told = await response.text();
    expect(told).toContain('"code":"internal_error"');
    expect(told).not.toContain("db.internal");
    expect(failures).toEqual(["internal_error"]);
    expect(text()).toContain("AG-UI run ended internal_error");
    expect(text()).toContain("db.internal.example");
  });
});
