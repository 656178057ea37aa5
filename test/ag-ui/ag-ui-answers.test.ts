import type { Interrupt } from "@ag-ui/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgUiApprover } from "../../src/ag-ui/index.js";
import {
  type AgUiTestServer,
  approve,
  clientFor,
  deletingSteps,
  postRun,
  runClient,
  startAgUiServer,
} from "./ag-ui-server.js";

let server: AgUiTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A gate a test opens when it is ready. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** Posts an answer and drops the connection as soon as `dropWhen` resolves. */
async function answerAndDrop(
  url: string,
  threadId: string,
  interrupt: Interrupt,
  dropWhen: Promise<void>,
) {
  const client = new AbortController();
  const sent = fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-user": "ada" },
    body: JSON.stringify({
      threadId,
      runId: crypto.randomUUID(),
      messages: [],
      tools: [],
      context: [],
      resume: [approve(interrupt)],
    }),
    signal: client.signal,
  }).then((response) => response.text());
  await dropWhen;
  client.abort();
  await sent.catch(() => {});
}

const runIdOf = (interrupt: Interrupt) => interrupt.id.slice(0, interrupt.id.lastIndexOf("."));

describe("an AG-UI answer is spent only when the run it resumes takes it", () => {
  it("a client that drops before the run takes the answer leaves the interrupt open: the retry runs the call, once", async () => {
    const held = gate();
    const entered = gate();
    let answering: Request | undefined;
    server = await startAgUiServer(deletingSteps(["rec_a"]), {
      authorize: async (request, context) => {
        if (context.answering && answering === undefined) {
          answering = request;
          entered.open();
          await held.opened;
        }
        return request.headers.get("x-user") === "ada" ? "ada@example.com" : undefined;
      },
    });
    const client = clientFor(server.url);
    const [interrupt] = (await runClient(client, { message: "Delete rec_a" })).interrupts;

    await answerAndDrop(server.url, client.threadId, interrupt!, entered.opened);
    // The server saw the client go while it was still checking who answers.
    await vi.waitFor(() => expect(answering?.signal.aborted).toBe(true));
    held.open();
    await vi.waitFor(async () =>
      expect((await server!.runStore.load(runIdOf(interrupt!))).status).toBe("suspended"),
    );
    expect(server.runs).toEqual([]);

    const retry = await runClient(client, { resume: [approve(interrupt!)] });
    expect(retry.error).toBeUndefined();
    expect(server.runs).toEqual([{ ids: ["rec_a"] }]);
  });

  it("a client that drops after the tool started: the run goes on to its end, the call ran once, the retry is refused and the thread goes on from it", async () => {
    const held = gate();
    const started = gate();
    server = await startAgUiServer(
      [
        ...deletingSteps(["rec_a"]),
        (request) => ({
          text: `earlier: ${request.messages.filter((m) => m.role === "tool").length} tool result`,
        }),
      ],
      {
        beforeDelete: async () => {
          started.open();
          await held.opened;
        },
      },
    );
    const client = clientFor(server.url);
    const [interrupt] = (await runClient(client, { message: "Delete rec_a" })).interrupts;

    await answerAndDrop(server.url, client.threadId, interrupt!, started.opened);
    held.open();
    await vi.waitFor(async () =>
      expect((await server!.runStore.load(runIdOf(interrupt!))).status).toBe("completed"),
    );
    expect(server.runs).toEqual([{ ids: ["rec_a"] }]);

    const retry = await postRun(server.url, {
      threadId: client.threadId,
      resume: [approve(interrupt!)],
    });
    expect(retry.error?.code).toBe("already_answered");
    expect(retry.error?.message).not.toMatch(/revision|pid|host|@/);
    expect(server.runs).toEqual([{ ids: ["rec_a"] }]);

    const next = await postRun(server.url, {
      threadId: client.threadId,
      messages: [{ id: "m2", role: "user", content: "What happened?" }],
    });
    expect(next.error).toBeUndefined();
    const text = (server.model.requests.at(-1)?.messages ?? []).filter((m) => m.role === "tool");
    expect(text).toHaveLength(1);
    expect(String(text[0]?.content)).toContain("rec_a");
  });
});

describe("an answer the interrupt did not offer is refused before anything is spent", () => {
  it("an edit when the question offered none: refused, and the question stays open for a real answer", async () => {
    server = await startAgUiServer(deletingSteps(["rec_a", "rec_b"]), {
      agentOptions: { approvalPolicy: {} },
    });
    const client = clientFor(server.url);
    const [interrupt] = (await runClient(client, { message: "Delete rec_a and rec_b" })).interrupts;
    const edited = await postRun(server.url, {
      threadId: client.threadId,
      resume: [approve(interrupt!, { editedArgs: { ids: ["rec_b"] } })],
    });
    expect(edited.error?.code).toBe("invalid_answer");
    expect(edited.types).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(server.runs).toEqual([]);

    expect((await runClient(client, { resume: [approve(interrupt!)] })).error).toBeUndefined();
    expect(server.runs).toEqual([{ ids: ["rec_a", "rec_b"] }]);
  });

  it("a standing approval when the question offered none: refused, and the question stays open", async () => {
    server = await startAgUiServer(deletingSteps(["rec_a"]));
    const client = clientFor(server.url);
    const [interrupt] = (await runClient(client, { message: "Delete rec_a" })).interrupts;
    const standing = await postRun(server.url, {
      threadId: client.threadId,
      resume: [approve(interrupt!, { standing: true })],
    });
    expect(standing.error?.code).toBe("invalid_answer");
    expect(server.runs).toEqual([]);
    expect((await runClient(client, { resume: [approve(interrupt!)] })).error).toBeUndefined();
    expect(server.runs).toEqual([{ ids: ["rec_a"] }]);
  });
});

describe("AG-UI interrupts expire", () => {
  it("carry expiresAt from the approver's timeout; an answer after it is refused, the dismissal ends the call expired, and the thread goes on", async () => {
    server = await startAgUiServer([...deletingSteps(["rec_a"]), { text: "Hello again." }], {
      approver: new AgUiApprover({ timeoutMs: 1_000 }),
    });
    const client = clientFor(server.url);
    const asked = Date.now();
    const [interrupt] = (await runClient(client, { message: "Delete rec_a" })).interrupts;
    const expiresAt = Date.parse(String(interrupt?.expiresAt));
    expect(expiresAt).toBeGreaterThanOrEqual(asked + 1_000);
    await untilPast(expiresAt);

    const late = await postRun(server.url, {
      threadId: client.threadId,
      resume: [approve(interrupt!)],
    });
    expect(late.error?.code).toBe("interrupt_expired");
    expect(server.runs).toEqual([]);

    // The official client's own way out of an expired interrupt: cancel it.
    const dismissed = await runClient(client, {
      resume: [{ interruptId: interrupt!.id, status: "cancelled" }],
    });
    expect(server.runs).toEqual([]);
    const state = await server.runStore.load(runIdOf(interrupt!));
    expect(state.finishedCalls?.[0]?.status).toBe("expired");
    // The agent's default on expiry: the model is told, and the run goes on.
    expect(dismissed.error).toBeUndefined();
    const result = dismissed.events.find((event) => event.type === "TOOL_CALL_RESULT") as
      | { content?: string }
      | undefined;
    expect(result?.content).toMatch(/expired/);

    const next = await runClient(client, { message: "Hello" });
    expect(next.error).toBeUndefined();
  });

  it("a new message on a thread whose open interrupt expired settles it first: the call ends expired and the message is answered", async () => {
    server = await startAgUiServer(
      [
        ...deletingSteps(["rec_a"]),
        (request) => ({ text: `last: ${request.messages.at(-1)?.content}` }),
      ],
      { approver: new AgUiApprover({ timeoutMs: 1_000 }) },
    );
    const client = clientFor(server.url);
    const [interrupt] = (await runClient(client, { message: "Delete rec_a" })).interrupts;
    const expiresAt = Date.parse(String(interrupt?.expiresAt));
    await untilPast(expiresAt);
    const next = await postRun(server.url, {
      threadId: client.threadId,
      messages: [{ id: "m2", role: "user", content: "Never mind that. Hello?" }],
    });
    expect(next.error).toBeUndefined();
    expect(server.runs).toEqual([]);
    const state = await server.runStore.load(runIdOf(interrupt!));
    expect(state.finishedCalls?.[0]?.status).toBe("expired");
    const seen = server.model.requests.at(-1)?.messages ?? [];
    expect(seen.at(-1)).toEqual({ role: "user", content: "Never mind that. Hello?" });
  });
});

/** Waits until the clock has passed `moment` (epoch milliseconds). */
async function untilPast(moment: number): Promise<void> {
  while (Date.now() <= moment) {
    await new Promise((resolve) => setTimeout(resolve, moment - Date.now() + 10));
  }
}
