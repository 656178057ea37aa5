import { PassThrough } from "node:stream";
import { type AgentEvent, type ApprovalAction, ToolExecutionError } from "switchyard-agents";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toolMessages } from "../../src/agent/tool-messages.js";
import { ProgressRenderer } from "../../src/cli/render-progress.js";

function capture(terminal: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY: terminal });
  let written = "";
  stream.on("data", (chunk: Buffer) => {
    written += chunk.toString("utf8");
  });
  return { stream, written: () => written };
}

const action: ApprovalAction = {
  approvalId: "run.approval-of-delete-callbacks",
  toolName: "delete_callbacks",
  toolCallId: "call_2",
  arguments: { callback_ids: ["a"] },
  fingerprint: "sha256:abc",
  description: {
    summary: "Delete 1 callback",
    details: ["https://hooks.old-warehouse.example/acme/orders (orderEvent)"],
  },
};

const steps: AgentEvent[] = [
  { type: "text-delta", stepNumber: 1, delta: "Listing the " },
  { type: "text-delta", stepNumber: 1, delta: "callbacks." },
  {
    type: "tool-call",
    stepNumber: 1,
    toolCallId: "call_1",
    toolName: "list_callbacks",
    rawArguments: '{"message_type":"all"}',
  },
  {
    type: "tool-result",
    stepNumber: 1,
    toolCall: {
      toolCallId: "call_1",
      toolName: "list_callbacks",
      rawArguments: "{}",
      content: '{"callbacks":[{"id":"a"},{"id":"b"}],"total":2,"omitted":0}',
      status: "succeeded",
      result: {},
    },
  },
  { type: "approval-request", stepNumber: 2, toolCallId: "call_2", action },
];

afterEach(() => {
  vi.useRealTimers();
});

describe("ProgressRenderer", () => {
  it("writes steps, tool calls, outcomes, approvals and text as plain lines", () => {
    vi.useFakeTimers();
    let now = 0;
    const output = capture(false);
    const progress = new ProgressRenderer({
      stream: output.stream,
      now: () => now,
      plainWaitIntervalMs: 10_000,
    });

    for (const event of steps) progress.handle(event);
    now = 10_000;
    vi.advanceTimersByTime(10_000);
    now = 12_500;
    progress.handle({
      type: "approval-result",
      stepNumber: 2,
      toolCallId: "call_2",
      toolName: "delete_callbacks",
      approval: { outcome: "refused", fingerprint: "sha256:abc", code: "denied", reason: "No." },
    });
    progress.close();

    expect(output.written()).toBe(
      [
        "step 1",
        "  Listing the callbacks.",
        '  -> list_callbacks {"message_type":"all"}',
        "  <- list_callbacks: ok callbacks: 2 items, total: 2, omitted: 0",
        "step 2",
        "  ? approval needed for delete_callbacks: Delete 1 callback (cannot be undone)",
        '      - "https://hooks.old-warehouse.example/acme/orders (orderEvent)"',
        "  still waiting for approval of delete_callbacks: 10s",
        "  refused (denied) after 12s: No.",
        "",
      ].join("\n"),
    );
  });

  it("on a terminal, redraws one waiting line every second and pauses while the person is asked", () => {
    vi.useFakeTimers();
    let now = 0;
    const output = capture(true);
    const progress = new ProgressRenderer({ stream: output.stream, now: () => now });
    progress.handle(steps[4]!);
    const afterRequest = output.written();
    expect(afterRequest).toMatch(/\n {2}waiting for approval: delete_callbacks 0\.0s$/);

    for (const second of [1, 2]) {
      now = second * 1000;
      vi.advanceTimersByTime(1000);
    }
    expect(output.written().slice(afterRequest.length)).toBe(
      "\r\x1b[2K  waiting for approval: delete_callbacks 1.0s\r\x1b[2K  waiting for approval: delete_callbacks 2.0s",
    );

    progress.suspend();
    const whileAsked = output.written();
    vi.advanceTimersByTime(3_000);
    expect(output.written()).toBe(whileAsked);
    expect(whileAsked.endsWith("\r\x1b[2K")).toBe(true);

    progress.resume();
    progress.close();
  });

  it("prints a tool call's arguments as JSON and a person's note in its result as they typed it, escaped once", () => {
    const output = capture(false);
    const progress = new ProgressRenderer({ stream: output.stream });
    progress.handle({
      type: "tool-call",
      stepNumber: 1,
      toolCallId: "call_1",
      toolName: "delete_callbacks",
      rawArguments: '{"callback_ids":["cb_\\"1"]}',
    });
    progress.handle({
      type: "tool-result",
      stepNumber: 1,
      toolCall: {
        toolCallId: "call_1",
        toolName: "delete_callbacks",
        rawArguments: "{}",
        result: {},
        status: "succeeded",
        content: toolMessages.withPersonNote('{"deleted":1}', 'looks "right"\x1b[2J'),
      },
    });
    progress.close();

    const written = output.written();
    expect(written).toContain('  -> delete_callbacks {"callback_ids":["cb_\\"1"]}\n');
    expect(written).toContain('person_note: "looks \\"right\\"\\u001b[2J"');
    expect(written).not.toContain('\\\\"');
    expect(written.replaceAll("\n", "")).not.toMatch(/\p{Cc}/u);
  });

  it("writes out what a service gave: a tool result's keys and values, errors, interaction ids", () => {
    const output = capture(false);
    const progress = new ProgressRenderer({ stream: output.stream });
    const call = {
      toolCallId: "call_9",
      toolName: "list_callbacks",
      rawArguments: "{}",
      result: {},
    };
    progress.handle({
      type: "tool-result",
      stepNumber: 1,
      toolCall: {
        ...call,
        status: "succeeded",
        content: '{"\\u001b[2Jkey\\u202e":"\\u001b]0;x\\u0007"}',
      },
    });
    progress.handle({
      type: "tool-result",
      stepNumber: 1,
      toolCall: {
        ...call,
        status: "failed",
        content: "",
        error: new ToolExecutionError({
          toolName: "list_callbacks",
          toolCallId: "call_9",
          message: "service said \x1b[31mok\u2028Approved",
        }),
      },
    });
    progress.handle({
      type: "approval-result",
      stepNumber: 1,
      toolCallId: "call_9",
      approval: { outcome: "pending", interactionId: "i\x1b[1A\u202e" },
    } as AgentEvent);
    progress.close();

    const written = output.written();
    // The key as text, the value as JSON: each escaped once.
    expect(written).toContain('ok \\x1b[2Jkey\\u202e: "\\u001b]0;x\\u0007"');
    expect(written).toContain("service said \\x1b[31mok\\u2028Approved");
    expect(written).toContain("approval pending (interaction i\\x1b[1A\\u202e)");
    expect(written.replaceAll("\n", "")).not.toMatch(/[\p{Cc}\p{Cf}\u2028]/u);
  });
});
