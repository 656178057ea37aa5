import type { Message } from "@ag-ui/client";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ScriptedStep } from "../../src/testing/index.js";
import {
  type AgUiTestServer,
  approve,
  deletingSteps,
  deny,
  startAgUiServer,
} from "../ag-ui/ag-ui-server.js";
import {
  type CopilotKitModules,
  type CopilotKitRuntime,
  type FrontEnd,
  frontEndFor,
  loadCopilotKit,
  startCopilotKitRuntime,
} from "./copilotkit-runtime.js";

// CopilotKit's own runtime (`CopilotRuntime` from @copilotkit/runtime/v2,
// served by its Node listener) in front of the Switchyard AG-UI handler, and
// CopilotKit's front-end core driving it as a CopilotKit page does.

let copilotKit: CopilotKitModules;
beforeAll(async () => {
  copilotKit = await loadCopilotKit();
});

let switchyard: AgUiTestServer | undefined;
let runtime: CopilotKitRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  await switchyard?.close();
  runtime = undefined;
  switchyard = undefined;
  vi.restoreAllMocks();
});

async function start(
  steps: readonly ScriptedStep[],
  options: Parameters<typeof startAgUiServer>[1] = {},
  hooks?: Parameters<typeof startCopilotKitRuntime>[2],
) {
  switchyard = await startAgUiServer(steps, options);
  runtime = await startCopilotKitRuntime(copilotKit, switchyard.url, hooks);
  return { switchyard, runtimeUrl: runtime.runtimeUrl };
}

/** A promise a test holds something at, and the function that lets it go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Every tool call in the front end's message list: each must be there once, with whole JSON. */
function toolCallsIn(messages: readonly Message[]) {
  return messages.flatMap((message) =>
    message.role === "assistant"
      ? (message.toolCalls ?? []).map((call) => ({
          id: call.id,
          arguments: JSON.parse(call.function.arguments) as unknown,
        }))
      : [],
  );
}

/** The text of the front end's last assistant message. */
function lastAnswer(frontEnd: FrontEnd): string | undefined {
  const answers = frontEnd.agent.messages.filter(
    (message) => message.role === "assistant" && typeof message.content === "string",
  );
  return answers.at(-1)?.content as string | undefined;
}

/** Waits until `check` holds, polling: for what the runtime finishes after its client left. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** The runtime's own copy of a thread's events (its `/threads/:id/events` route). */
async function runtimeEvents(runtimeUrl: string, threadId: string, user = "ada") {
  const response = await fetch(`${runtimeUrl}/threads/${threadId}/events`, {
    headers: { "x-user": user },
  });
  return {
    status: response.status,
    types: response.ok
      ? ((await response.json()) as { events: Array<{ type: string }> }).events.map(
          (event) => event.type,
        )
      : [],
  };
}

/** Waits until the runtime has kept `runs` ends of the thread's runs: what it finishes after its page left. */
function runtimeFinished(runtimeUrl: string, threadId: string, runs: number): Promise<void> {
  return until(
    async () =>
      (await runtimeEvents(runtimeUrl, threadId)).types.filter((type) => type === "RUN_FINISHED")
        .length === runs,
    `the runtime has ${runs} finished run(s) of the thread`,
  );
}

describe("CopilotKit's runtime in front of the AG-UI handler", () => {
  it("carries a multi-turn thread with approvals: each interrupt reaches the page, each answer runs its call once, and the page's messages hold each call once with whole JSON", async () => {
    const { switchyard, runtimeUrl } = await start([
      { toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_a"] } }] },
      { text: "Deleted rec_a." },
      { toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_b"] } }] },
      { text: "Deleted rec_b." },
      // The model's view of the thread on the third message: the server's history.
      (request) => ({
        text: `You first asked: ${request.messages.find((message) => message.role === "user")?.content}; ${
          request.messages.filter((message) => message.role === "tool").length
        } tool results so far.`,
      }),
    ]);
    const page = frontEndFor(copilotKit, runtimeUrl, "ada");

    for (const [turn, id] of [
      [1, "rec_a"],
      [2, "rec_b"],
    ] as const) {
      const asked = await page.send({ message: `Delete ${id}` });
      expect(asked.error).toBeUndefined();
      expect(asked.interrupts).toHaveLength(1);
      const [interrupt] = asked.interrupts;
      expect(interrupt!.metadata?.switchyard).toMatchObject({
        tool: "delete_records",
        arguments: { ids: [id] },
      });
      // CopilotKit's agent keeps the open interrupt, as the AG-UI client does.
      expect(page.agent.pendingInterrupts.map((open) => open.id)).toEqual([interrupt!.id]);

      const answered = await page.send({ resume: [approve(interrupt!)] });
      expect(answered.error).toBeUndefined();
      // After the resume, the call is not announced again: only its result.
      expect(answered.types).not.toContain("TOOL_CALL_START");
      expect(answered.types).not.toContain("TOOL_CALL_ARGS");
      expect(answered.types).toContain("TOOL_CALL_RESULT");
      expect(switchyard.runs).toHaveLength(turn);
      expect(lastAnswer(page)).toBe(`Deleted ${id}.`);
    }
    expect(switchyard.runs).toEqual([{ ids: ["rec_a"] }, { ids: ["rec_b"] }]);

    const third = await page.send({ message: "What did I ask you first?" });
    expect(third.error).toBeUndefined();
    expect(lastAnswer(page)).toBe("You first asked: Delete rec_a; 2 tool results so far.");

    const calls = toolCallsIn(page.agent.messages);
    expect(calls.map((call) => call.arguments)).toEqual([{ ids: ["rec_a"] }, { ids: ["rec_b"] }]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    const results = page.agent.messages.filter((message) => message.role === "tool");
    expect(results.map((message) => message.toolCallId)).toEqual(calls.map((call) => call.id));
  });

  it("passes a refusal through: a denied call never runs, and the model is told", async () => {
    const { switchyard, runtimeUrl } = await start(deletingSteps(["rec_1"]));
    const page = frontEndFor(copilotKit, runtimeUrl, "ada");
    const asked = await page.send({ message: "Delete rec_1" });
    const interrupt = asked.interrupts[0]!;
    const denied = await page.send({ resume: [deny(interrupt)] });
    expect(denied.error).toBeUndefined();
    expect(switchyard.runs).toEqual([]);
    expect(lastAnswer(page)).toMatch(/^finished: .*denied/i);
  });
});

describe("a page that drops its connection, then tries again, behind CopilotKit's runtime", () => {
  it("during a new message's run: the runtime finishes the run; the page reopened on the thread gets the interrupt again and answering it runs the call once", async () => {
    const inModel = gate();
    const release = gate();
    const { switchyard, runtimeUrl } = await start([
      async () => {
        inModel.open();
        await release.opened;
        return { toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_1"] } }] };
      },
      { text: "Deleted rec_1." },
    ]);
    const page = frontEndFor(copilotKit, runtimeUrl, "ada");
    const asking = page.send({ message: "Delete rec_1" });
    await inModel.opened;
    await page.responded();
    page.drop();
    const dropped = await asking;
    expect(dropped.error?.code).toBe("abort");
    expect(dropped.interrupts).toEqual([]);

    // The runtime does not pass the page's drop on: the handler's run goes on to its interrupt.
    release.open();
    await runtimeFinished(runtimeUrl, page.agent.threadId, 1);
    const reopened = frontEndFor(copilotKit, runtimeUrl, "ada", page.agent.threadId);
    const joined = await reopened.reconnect();
    expect(joined.interrupts).toHaveLength(1);
    expect(reopened.agent.pendingInterrupts).toHaveLength(1);

    const answered = await reopened.send({ resume: [approve(joined.interrupts[0]!)] });
    expect(answered.error).toBeUndefined();
    expect(switchyard.runs).toEqual([{ ids: ["rec_1"] }]);
    expect(lastAnswer(reopened)).toBe("Deleted rec_1.");
    expect(toolCallsIn(reopened.agent.messages).map((call) => call.arguments)).toEqual([
      { ids: ["rec_1"] },
    ]);
  });

  it("while the answer is on its way: the runtime still delivers it, so the call runs once and the page's retry is refused already_answered", async () => {
    const answering = gate();
    const release = gate();
    const { switchyard, runtimeUrl } = await start(deletingSteps(["rec_1"]), {
      // The answer is held where the handler checks who sends it, before it takes it.
      authorize: async (request, context) => {
        if (context?.answering) {
          answering.open();
          await release.opened;
        }
        return request.headers.get("x-user") === "ada" ? "ada@example.com" : undefined;
      },
    });
    const page = frontEndFor(copilotKit, runtimeUrl, "ada");
    const asked = await page.send({ message: "Delete rec_1" });
    const interrupt = asked.interrupts[0]!;
    const sending = page.send({ resume: [approve(interrupt)] });
    await answering.opened;
    await page.responded();
    page.drop();
    expect((await sending).error?.code).toBe("abort");
    release.open();

    // Sent straight to the handler, a drop here spends nothing; behind the
    // runtime the request to the handler was never cut, so the answer is taken.
    await until(() => switchyard.runs.length === 1, "the approved call ran");
    await runtimeFinished(runtimeUrl, page.agent.threadId, 2);
    const retried = await page.send({ resume: [approve(interrupt)] });
    expect(retried.error?.code).toBe("already_answered");
    expect(switchyard.runs).toEqual([{ ids: ["rec_1"] }]);

    const reopened = frontEndFor(copilotKit, runtimeUrl, "ada", page.agent.threadId);
    await reopened.reconnect();
    expect(lastAnswer(reopened)).toBe('finished: {"deleted":["rec_1"]}');
  });

  it("during the approved call: a retry while the run goes on gets an empty answer from the runtime; once it ended, the retry is refused already_answered and the call ran once", async () => {
    const inTool = gate();
    const release = gate();
    const { switchyard, runtimeUrl } = await start(deletingSteps(["rec_1"]), {
      beforeDelete: async () => {
        inTool.open();
        await release.opened;
      },
    });
    const page = frontEndFor(copilotKit, runtimeUrl, "ada");
    const asked = await page.send({ message: "Delete rec_1" });
    const interrupt = asked.interrupts[0]!;
    const sending = page.send({ resume: [approve(interrupt)] });
    await inTool.opened;
    await page.responded();
    page.drop();
    expect((await sending).error?.code).toBe("abort");
    // The page still holds the question: it never saw the run end.
    expect(page.agent.pendingInterrupts.map((open) => open.id)).toEqual([interrupt.id]);

    // CopilotKit's in-memory runner takes one run per thread: while the
    // handler's run goes on, the retry gets a stream with no event at all.
    const runtimeErrors = vi.spyOn(console, "error").mockImplementation(() => {});
    const early = await page.send({ resume: [approve(interrupt)] });
    expect(early.types).toEqual([]);
    expect(runtimeErrors.mock.calls.flat().map(String)).toContain("Error: Thread already running");
    runtimeErrors.mockRestore();

    release.open();
    await runtimeFinished(runtimeUrl, page.agent.threadId, 2);
    const late = await page.send({ resume: [approve(interrupt)] });
    expect(late.error?.code).toBe("already_answered");
    expect(switchyard.runs).toEqual([{ ids: ["rec_1"] }]);

    const reopened = frontEndFor(copilotKit, runtimeUrl, "ada", page.agent.threadId);
    const joined = await reopened.reconnect();
    expect(joined.types).toContain("TOOL_CALL_RESULT");
    expect(lastAnswer(reopened)).toBe('finished: {"deleted":["rec_1"]}');
    expect(toolCallsIn(reopened.agent.messages).map((call) => call.arguments)).toEqual([
      { ids: ["rec_1"] },
    ]);
  });
});

describe("the page's stop button behind CopilotKit's runtime", () => {
  it("reaches the handler: the run on the server ends aborted, and the next message goes on", async () => {
    const inModel = gate();
    const modelStopped = gate();
    const failures: string[] = [];
    const { runtimeUrl } = await start(
      [
        (_request, options) =>
          new Promise((resolve) => {
            inModel.open();
            options?.signal?.addEventListener("abort", () => {
              modelStopped.open();
              resolve({ text: "Too late." });
            });
          }),
        { text: "Here again." },
      ],
      { onError: (failure) => void failures.push(failure.code) },
    );
    const page = frontEndFor(copilotKit, runtimeUrl, "ada");
    const running = page.send({ message: "Hello" });
    await inModel.opened;
    // CopilotKit's stop: a request to the runtime's /agent/:id/stop/:threadId.
    page.agent.abortRun();
    expect((await running).error?.code).toBe("abort");
    await modelStopped.opened;
    await until(() => failures.length > 0, "the handler reported the run's end");
    expect(failures).toEqual(["aborted"]);

    const next = await page.send({ message: "Still there?" });
    expect(next.error).toBeUndefined();
    expect(lastAnswer(page)).toBe("Here again.");
  });
});

describe("two people on two threads behind CopilotKit's runtime", () => {
  /** Refuses the runtime's thread-reading routes, which the handler's authorize never sees. */
  const runOnly = {
    onBeforeHandler: ({ route }: { route: { method: string } }) => {
      if (route.method !== "agent/run" && route.method !== "info") {
        throw new Response("Not here.", { status: 403 });
      }
    },
  };

  it("each goes on with their own conversation; a third person can neither write to nor answer on either, and the runtime's hook keeps them from reading it", async () => {
    const firstWords = (request: { messages: readonly { role: string; content?: unknown }[] }) => ({
      text: `first words: ${request.messages.find((message) => message.role === "user")?.content}`,
    });
    const { switchyard, runtimeUrl } = await start(
      [
        { toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_ada"] } }] },
        { toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_bob"] } }] },
        { text: "Deleted rec_ada." },
        { text: "Deleted rec_bob." },
        firstWords,
        firstWords,
      ],
      {},
      runOnly,
    );
    const ada = frontEndFor(copilotKit, runtimeUrl, "ada");
    const bob = frontEndFor(copilotKit, runtimeUrl, "bob");
    const adaAsked = await ada.send({ message: "Ada: delete rec_ada" });
    const bobAsked = await bob.send({ message: "Bob: delete rec_bob" });
    expect(adaAsked.interrupts).toHaveLength(1);
    expect(bobAsked.interrupts).toHaveLength(1);

    // The runtime forwards each page's own header; the handler's authorize decides.
    for (const [owner, asked] of [
      [ada, adaAsked],
      [bob, bobAsked],
    ] as const) {
      const eve = frontEndFor(copilotKit, runtimeUrl, "eve", owner.agent.threadId);
      const written = await eve.send({ message: "Eve: delete everything" });
      expect(written.error?.code).toBe("not_thread_owner");
      const answered = await frontEndFor(copilotKit, runtimeUrl, "eve", owner.agent.threadId).send({
        resume: [approve(asked.interrupts[0]!)],
      });
      expect(answered.error?.code).toBe("not_thread_owner");
      expect((await runtimeEvents(runtimeUrl, owner.agent.threadId, "eve")).status).toBe(403);
    }
    const crossed = await frontEndFor(copilotKit, runtimeUrl, "bob", ada.agent.threadId).send({
      resume: [approve(adaAsked.interrupts[0]!)],
    });
    expect(crossed.error?.code).toBe("not_thread_owner");
    expect(switchyard.runs).toEqual([]);

    expect((await ada.send({ resume: [approve(adaAsked.interrupts[0]!)] })).error).toBeUndefined();
    expect((await bob.send({ resume: [approve(bobAsked.interrupts[0]!)] })).error).toBeUndefined();
    expect(switchyard.runs).toEqual([{ ids: ["rec_ada"] }, { ids: ["rec_bob"] }]);

    await ada.send({ message: "Ada again" });
    await bob.send({ message: "Bob again" });
    expect(lastAnswer(ada)).toBe("first words: Ada: delete rec_ada");
    expect(lastAnswer(bob)).toBe("first words: Bob: delete rec_bob");
  });

  it("without such a hook, the runtime replays a thread to anyone who names it: its own copy, which the handler's authorize never sees", async () => {
    const { runtimeUrl } = await start(deletingSteps(["rec_ada"]));
    const ada = frontEndFor(copilotKit, runtimeUrl, "ada");
    await ada.send({ message: "Ada: delete rec_ada" });
    await until(
      async () => (await runtimeEvents(runtimeUrl, ada.agent.threadId)).types.length > 0,
      "the runtime kept the run",
    );
    const eve = frontEndFor(copilotKit, runtimeUrl, "eve", ada.agent.threadId);
    const joined = await eve.reconnect();
    expect(joined.interrupts).toHaveLength(1);
    expect(eve.agent.messages.find((message) => message.role === "user")?.content).toBe(
      "Ada: delete rec_ada",
    );
  });
});
