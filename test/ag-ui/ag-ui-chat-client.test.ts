import { HttpAgent, type Interrupt, type RunAgentParameters } from "@ag-ui/client";
import { afterEach, describe, expect, it } from "vitest";
import { threadRunId } from "../../src/ag-ui/thread-runs.js";
import { type AgUiTestServer, deletingSteps, startAgUiServer } from "./ag-ui-server.js";

let server: AgUiTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** How one request ended, as the chat client of docs/ag-ui.md reads it. */
type Ended =
  | { ended: "answered" }
  | { ended: "interrupt"; interrupts: Interrupt[] }
  | { ended: "error"; code: string | undefined; message: string };

/** The chat client of docs/ag-ui.md ("A chat client, end to end"), as written there. */
function chatClient(url: string, user: string) {
  const agent = new HttpAgent({ url, headers: { "x-user": user } });

  async function run(parameters: RunAgentParameters = {}): Promise<Ended> {
    let error: { code: string | undefined; message: string } | undefined;
    await agent.runAgent(parameters, {
      onRunErrorEvent: ({ event }) => {
        error = { code: event.code, message: event.message };
      },
    });
    if (error) return { ended: "error", ...error };
    if (agent.pendingInterrupts.length > 0)
      return { ended: "interrupt", interrupts: agent.pendingInterrupts };
    return { ended: "answered" };
  }

  return {
    agent,
    canSend: () => agent.pendingInterrupts.length === 0,
    send(text: string): Promise<Ended> {
      agent.addMessage({ id: crypto.randomUUID(), role: "user", content: text });
      return run();
    },
    answer(interrupt: Interrupt, approved: boolean): Promise<Ended> {
      const action = interrupt.metadata?.switchyard as { fingerprint?: string } | undefined;
      const fingerprint = action?.fingerprint;
      return run({
        resume: [
          { interruptId: interrupt.id, status: "resolved", payload: { approved, fingerprint } },
        ],
      });
    },
  };
}

describe("the chat client of docs/ag-ui.md, end to end with the official client", () => {
  it("sends, is asked, cannot send while asked, answers (a refused answer keeps the question open), reads a failed run's code, and the thread goes on", async () => {
    server = await startAgUiServer([
      ...deletingSteps(["rec_a"]),
      { error: new Error("the model service broke") },
      (request) => ({
        text: `I saw: ${request.messages
          .filter((message) => message.role === "user")
          .map((message) => message.content)
          .join(" / ")}`,
      }),
    ]);
    const chat = chatClient(server.url, "ada");

    const asked = await chat.send("Delete rec_a");
    expect(asked).toMatchObject({ ended: "interrupt" });
    const [interrupt] = asked.ended === "interrupt" ? asked.interrupts : [];
    expect(interrupt?.metadata?.switchyard).toMatchObject({
      tool: "delete_records",
      task: "Delete rec_a",
    });
    expect(chat.canSend()).toBe(false);
    // The official client refuses to send a message while an interrupt is open.
    await expect(chat.send("Hello?")).rejects.toThrow(/pending interrupt/);
    chat.agent.messages.pop();

    // Refused: the answer names another action; the question stays open.
    const forged = { ...interrupt!, metadata: { switchyard: { fingerprint: "sha256:other" } } };
    expect(await chat.answer(forged, true)).toMatchObject({
      ended: "error",
      code: "changed_action",
    });
    expect(chat.canSend()).toBe(false);
    expect(await chat.answer(interrupt!, true)).toEqual({ ended: "answered" });
    expect(server.runs).toEqual([{ ids: ["rec_a"] }]);
    expect(chat.canSend()).toBe(true);

    // A run that fails: runAgent resolves, RUN_ERROR says why, in words without the server's.
    const failed = await chat.send("And now?");
    expect(failed).toMatchObject({ ended: "error", code: "failed" });
    expect(JSON.stringify(failed)).not.toContain("model service broke");
    // The server keeps why: the run's status and error, as the docs print them.
    const state = await server.runStore.load(threadRunId(chat.agent.threadId, 2));
    expect([state.status, state.error?.message]).toEqual(["failed", "the model service broke"]);
    // The failed turn stays in the thread: the next message sees it.
    expect(await chat.send("Still there?")).toEqual({ ended: "answered" });
    expect(chat.agent.messages.at(-1)?.content).toBe(
      "I saw: Delete rec_a / And now? / Still there?",
    );
  });
});
