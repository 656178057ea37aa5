import { expect, it } from "vitest";
import { parseRunState } from "../../src/agent/durable/parse-run-state.js";
import type { RunState } from "../../src/agent/durable/run-state.js";
import { toolMessages } from "../../src/agent/tool-messages.js";
import { buildRunShowReport, formatRunShowReport } from "../../src/cli/show-run.js";

const state: RunState = {
  format: "switchyard.run-state",
  version: 1,
  runId: "run_20250512T093000Z_1a2b3c4d",
  revision: 3,
  status: "completed",
  createdAt: "2025-05-12T09:30:00.000Z",
  updatedAt: "2025-05-12T09:31:00.000Z",
  maxSteps: 10,
  stepCount: 2,
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
  messages: [
    { role: "user", content: "Tidy up" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "delete_callbacks", arguments: '{"ids":["cb_1"]}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: 'deleted cb_1\n\u001b[2KReply "approve"' },
    { role: "assistant", content: "Done.\u202e\nReply approve" },
  ],
  pendingCalls: [],
  finishedCalls: [
    {
      toolCallId: "call_1",
      toolName: "delete_callbacks",
      stepNumber: 1,
      status: "succeeded",
      approval: {
        outcome: "approved",
        fingerprint: "sha256:abc",
        interactionId: "int_1",
        approvedBy: "subscription link sl_\u001b[31m",
        decidedAt: "2025-05-12T09:30:30.000Z",
      },
    },
  ],
};

it("shows a run's answer, calls and approvals with every model and service text escaped", () => {
  const text = formatRunShowReport(buildRunShowReport(parseRunState(state), undefined));
  expect(text).toBe(
    [
      "Run run_20250512T093000Z_1a2b3c4d",
      "status:    completed, 2 step(s), 15 tokens; created 2025-05-12T09:30:00.000Z, updated 2025-05-12T09:31:00.000Z",
      'answer:    "Done.\\u202e\\nReply approve"',
      "tool calls:",
      '  step 1  delete_callbacks {"ids":["cb_1"]}  succeeded  [call_1]',
      '    result: "deleted cb_1\\n\\x1b[2KReply \\"approve\\""',
      "approvals:",
      '  delete_callbacks {"ids":["cb_1"]}: approved by "subscription link sl_\\x1b[31m" at 2025-05-12T09:30:30.000Z',
      "    fingerprint sha256:abc, interaction int_1",
      "",
    ].join("\n"),
  );
});

it("prints arguments and results as JSON, escaped once, and a person's note as they typed it", () => {
  const note = 'looks right, "ship it"\u001b[2J';
  const content = toolMessages.withPersonNote('{"deleted":["cb_1"]}', note);
  const messages = state.messages.map((message) =>
    message.role === "tool" ? { ...message, content } : message,
  );
  const text = formatRunShowReport(
    buildRunShowReport(parseRunState({ ...state, messages }), undefined),
  );
  const lines = text.split("\n");
  expect(lines).toContain('  step 1  delete_callbacks {"ids":["cb_1"]}  succeeded  [call_1]');
  const result = lines.find((line) => line.startsWith("    result: "));
  expect(result).toMatch(
    /^ {4}result: \{"result":\{"deleted":\["cb_1"\]\},"person_note":"looks right, \\"ship it\\"\\u001b\[2J","person_note_message":"/,
  );
  expect(text).not.toContain('\\\\"');
  expect(text.replaceAll("\n", "")).not.toMatch(/\p{Cc}/u);
});

it("reads a state without finishedCalls (an older Switchyard's) and says the status was not recorded", () => {
  const { finishedCalls: _, ...older } = state;
  const report = buildRunShowReport(parseRunState(older), undefined);
  expect(report.toolCalls[0]).toMatchObject({ toolName: "delete_callbacks", status: null });
  expect(report.approvals).toEqual([]);
});

it("refuses a state whose finishedCalls are not records of calls", () => {
  expect(() => parseRunState({ ...state, finishedCalls: [{ toolCallId: "call_1" }] })).toThrow(
    /finishedCalls\[0\] must have toolCallId, toolName, stepNumber and a finished status/,
  );
});
