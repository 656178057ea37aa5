import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  registeredSecretPlaceholder,
  secretFieldPlaceholder,
} from "../../src/agent/approval/action-view.js";
import { defineTool } from "../../src/tools/define-tool.js";
import {
  type AgUiTestServer,
  approve,
  clientFor,
  deletingSteps,
  deny,
  runClient,
  startAgUiServer,
} from "./ag-ui-server.js";

let server: AgUiTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("createAgUiHandler, with the official AG-UI client", () => {
  it("ends a run that needs approval with an interrupt describing the whole action, and runs the call once when approved", async () => {
    server = await startAgUiServer(deletingSteps(["rec_a", "rec_b"]));
    const client = clientFor(server.url);
    const first = await runClient(client, { message: "Delete rec_a and rec_b" });

    expect(first.error).toBeUndefined();
    // The arguments stream in pieces: one TOOL_CALL_ARGS or more.
    expect(first.types.filter((type, index) => type !== first.types[index - 1])).toEqual([
      "RUN_STARTED",
      "STEP_STARTED",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      "TOOL_CALL_END",
      "STEP_FINISHED",
      "RUN_FINISHED",
    ]);
    expect(first.interrupts).toHaveLength(1);
    const [interrupt] = first.interrupts;
    expect(interrupt).toMatchObject({
      reason: "tool_call",
      toolCallId: expect.any(String),
      metadata: {
        switchyard: {
          tool: "delete_records",
          arguments: { ids: ["rec_a", "rec_b"] },
          target: { service: "records", environment: "sandbox" },
          fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
          answers: { edit: true, perItem: true, standing: false },
        },
      },
    });
    // The interrupt is named by the agent's approval id of the call (the thread's first run).
    expect(interrupt?.id).toMatch(/^agui_[A-Za-z0-9_-]{22}_1\.[A-Za-z0-9_-]{22}$/);
    expect(interrupt?.message).toContain("delete_records");
    expect(server.runs).toEqual([]);

    const second = await runClient(client, { resume: [approve(interrupt!)] });
    expect(second.error).toBeUndefined();
    expect(server.runs).toEqual([{ ids: ["rec_a", "rec_b"] }]);
    expect(second.types).toContain("TOOL_CALL_RESULT");
    expect(second.types.at(-1)).toBe("RUN_FINISHED");
    const text = client.messages.findLast((message) => message.role === "assistant")?.content;
    expect(text).toContain("rec_a");
    // Who approved is recorded with the decision, as authorize() named them.
    const runId = interrupt!.id.slice(0, interrupt!.id.lastIndexOf("."));
    const state = await server.runStore.load(runId);
    expect(state.status).toBe("completed");
    expect(state.finishedCalls?.[0]?.approval).toMatchObject({
      outcome: "approved",
      approvedBy: "ada@example.com",
      interactionId: interrupt!.id,
    });
  });

  it("does not run a denied call, and tells the model it was denied", async () => {
    server = await startAgUiServer(deletingSteps(["rec_a"]));
    const client = clientFor(server.url);
    const first = await runClient(client, { message: "Delete rec_a" });
    const second = await runClient(client, { resume: [deny(first.interrupts[0]!, "not today")] });

    expect(second.error).toBeUndefined();
    expect(server.runs).toEqual([]);
    const text = String(client.messages.at(-1)?.content);
    expect(text).toContain("denied");
    expect(text).toContain("ada@example.com");
  });

  it("runs an edited call with the person's arguments, once the tool's schema accepts them", async () => {
    server = await startAgUiServer(deletingSteps(["rec_a", "rec_b"]));
    const client = clientFor(server.url);
    const first = await runClient(client, { message: "Delete rec_a and rec_b" });
    const toolCallId = first.interrupts[0]!.toolCallId;
    const answered = await runClient(client, {
      resume: [approve(first.interrupts[0]!, { editedArgs: { ids: ["rec_b"] } })],
    });
    expect(server.runs).toEqual([{ ids: ["rec_b"] }]);
    // The client learns what ran: a CUSTOM event naming the call and its edited arguments, before its result.
    const types: string[] = answered.events.map((event) => event.type);
    const edited = answered.events.filter((event) => event.type === "CUSTOM");
    expect(edited).toEqual([
      expect.objectContaining({
        name: "switchyard.edited_arguments",
        value: { toolCallId, arguments: { ids: ["rec_b"] } },
      }),
    ]);
    expect(types.indexOf("CUSTOM")).toBeLessThan(types.indexOf("TOOL_CALL_RESULT"));
    // The call's announced arguments are never sent again (AG-UI appends them).
    expect(types).not.toContain("TOOL_CALL_ARGS");
  });

  it("names an edit's arguments as the view shows arguments: what the person typed, a secret-named field's value as its placeholder", async () => {
    const posted: unknown[] = [];
    const postNote = defineTool({
      name: "post_note",
      description: "Posts a note to the team's wiki.",
      parameters: z.object({ text: z.string(), token: z.string().optional() }),
      needsApproval: true,
      execute: async (args) => {
        posted.push(args);
        return { posted: true };
      },
    });
    server = await startAgUiServer(
      [{ toolCalls: [{ name: "post_note", arguments: { text: "draft" } }] }, { text: "Posted." }],
      { agentOptions: { tools: [postNote] } },
    );
    const client = clientFor(server.url);
    const first = await runClient(client, { message: "Post the note" });
    // Text that looks like a credential to the log patterns, typed by the person themselves.
    const edit = { text: "see https://ops:hunter2@wiki.example/runbook", token: "tk_51ab3c" };
    const answered = await runClient(client, {
      resume: [approve(first.interrupts[0]!, { editedArgs: edit })],
    });
    expect(posted).toEqual([edit]);
    const edited = answered.events.filter((event) => event.type === "CUSTOM");
    expect(edited).toEqual([
      expect.objectContaining({
        name: "switchyard.edited_arguments",
        value: {
          toolCallId: first.interrupts[0]!.toolCallId,
          arguments: { text: edit.text, token: secretFieldPlaceholder("token") },
        },
      }),
    ]);
  });

  it("hides an edit's arguments whole when they hold one of the agent's secrets inside a value", async () => {
    const secret = "wiki-key-5f2c9a81d7";
    const postNote = defineTool({
      name: "post_note",
      description: "Posts a note to the team's wiki.",
      parameters: z.object({ text: z.string() }),
      needsApproval: true,
      execute: async () => ({ posted: true }),
    });
    server = await startAgUiServer(
      [{ toolCalls: [{ name: "post_note", arguments: { text: "draft" } }] }, { text: "Posted." }],
      { agentOptions: { tools: [postNote], secrets: [secret] } },
    );
    const client = clientFor(server.url);
    const first = await runClient(client, { message: "Post the note" });
    const answered = await runClient(client, {
      resume: [approve(first.interrupts[0]!, { editedArgs: { text: `the key is ${secret}` } })],
    });
    expect(JSON.stringify(answered.events)).not.toContain(secret);
    const edited = answered.events.filter((event) => event.type === "CUSTOM");
    expect(edited.map((event) => (event as { value?: unknown }).value)).toEqual([
      { toolCallId: first.interrupts[0]!.toolCallId, arguments: registeredSecretPlaceholder },
    ]);
  });

  it("refuses an edit the tool's schema rejects: nothing runs", async () => {
    server = await startAgUiServer(deletingSteps(["rec_a"]));
    const client = clientFor(server.url);
    const first = await runClient(client, { message: "Delete rec_a" });
    await runClient(client, {
      resume: [approve(first.interrupts[0]!, { editedArgs: { ids: ["../everything"] } })],
    });
    expect(server.runs).toEqual([]);
    expect(String(client.messages.at(-1)?.content)).toContain("invalid_edit");
  });

  it("offers no edit when the rule asking allows none, and refuses an edited answer then", async () => {
    server = await startAgUiServer(
      [{ toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_a", "rec_b"] } }] }],
      { agentOptions: { approvalPolicy: {} } },
    );
    const client = clientFor(server.url);
    const first = await runClient(client, { message: "Delete rec_a and rec_b" });
    const [interrupt] = first.interrupts;
    expect(interrupt?.metadata).toMatchObject({ switchyard: { answers: { edit: false } } });
    expect(interrupt?.responseSchema).not.toHaveProperty("properties.editedArgs");
    await runClient(client, {
      resume: [approve(interrupt!, { editedArgs: { ids: ["rec_b"] } })],
    });
    expect(server.runs).toEqual([]);
  });

  it("offers a standing approval when the rule allows one: approved so, the next call like it runs without asking", async () => {
    server = await startAgUiServer(
      [
        { toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_a"] } }] },
        { toolCalls: [{ name: "delete_records", arguments: { ids: ["rec_b"] } }] },
        { text: "done" },
      ],
      {
        agentOptions: {
          approvalPolicy: {
            rules: [
              {
                name: "record deletions",
                tool: "delete_records",
                decision: "ask",
                standing: { maxCalls: 3, forMs: 60_000 },
              },
            ],
          },
        },
      },
    );
    const client = clientFor(server.url);
    const first = await runClient(client, { message: "Delete rec_a, then rec_b" });
    const offered = first.interrupts[0]!;
    expect(offered.metadata).toMatchObject({
      switchyard: { answers: { standing: expect.any(Object) } },
    });
    const answers = (offered.metadata as { switchyard: { answers: { standing: unknown } } })
      .switchyard.answers;
    expect(answers.standing).toMatchObject({ toolName: "delete_records", maxCalls: 3 });

    const second = await runClient(client, { resume: [approve(offered, { standing: true })] });
    expect(second.error).toBeUndefined();
    expect(second.interrupts).toEqual([]);
    expect(server.runs).toEqual([{ ids: ["rec_a"] }, { ids: ["rec_b"] }]);
  });

  it("asks about each call of a batch on its own: the approved one runs, the denied one does not", async () => {
    server = await startAgUiServer(deletingSteps(["rec_a"], ["rec_b"]));
    const client = clientFor(server.url);
    const first = await runClient(client, { message: "Delete rec_a, then rec_b" });

    expect(first.interrupts).toHaveLength(2);
    const [a, b] = first.interrupts;
    expect(a?.id).not.toBe(b?.id);
    const second = await runClient(client, { resume: [approve(a!), deny(b!)] });
    expect(second.error).toBeUndefined();
    expect(server.runs).toEqual([{ ids: ["rec_a"] }]);
  });
});
