import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { readCappedBody } from "../../src/ag-ui/read-capped-body.js";
import { Agent } from "../../src/agent/agent.js";
import { judgeBatchItem } from "../../src/approvers/messaging/judge-batch-item.js";
import { maximumItemSelectionLength } from "../../src/clients/messaging/batch-answer.js";
import {
  maximumAnswerTextLength,
  parseInteraction,
} from "../../src/clients/messaging/parse-messaging-answers.js";
import { ResponseTooLargeError } from "../../src/errors/transport-errors.js";
import { UnexpectedAnswerError } from "../../src/errors/unexpected-answer-error.js";
import { HttpClient } from "../../src/internal/http/http-client.js";
import { mcpTools } from "../../src/mcp/index.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";

// Each cap is tested just under (read as usual) and just over (refused with
// words saying what was too long, the limit and what to do).

describe("an AG-UI request body", () => {
  const body = (bytes: number, declared: boolean) =>
    new Request("http://app.example/api/agent", {
      method: "POST",
      body: declared
        ? "x".repeat(bytes)
        : new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("x".repeat(bytes)));
              controller.close();
            },
          }),
      ...(declared ? {} : { duplex: "half" }),
    } as RequestInit);

  it("is read up to maxBodyBytes and answered 413 past it, declared or streamed", async () => {
    for (const declared of [true, false]) {
      expect(await readCappedBody(body(2_000, declared), 2_000)).toBe("x".repeat(2_000));
      const refused = await readCappedBody(body(2_001, declared), 2_000);
      expect(refused).toBeInstanceOf(Response);
      expect((refused as Response).status).toBe(413);
      expect(await (refused as Response).text()).toMatch(
        /larger than 2000 bytes, the most this endpoint reads \(its maxBodyBytes\): send a shorter RunAgentInput/,
      );
    }
  });
});

describe("a service answer", () => {
  it("is read up to maxResponseBytes and refused past it", async () => {
    const answer = (bytes: number) => () =>
      Promise.resolve(
        new Response(JSON.stringify("y".repeat(bytes - 2)), {
          headers: { "content-type": "application/json" },
        }),
      );
    const read = (bytes: number) =>
      new HttpClient({
        baseUrl: "https://api.example.com",
        fetch: answer(bytes),
        maxResponseBytes: 4_000,
      }).requestJson<string>({ method: "GET", path: "/" });
    expect(await read(4_000)).toHaveLength(3_998);
    const error = await read(4_001).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toMatch(
      /larger than 4000 bytes; it was cut off\. Raise maxResponseBytes/,
    );
  });
});

describe("a person's answer text", () => {
  const interaction = (text: string, optionId = "approve") => ({
    interaction_id: "interaction-1",
    message_id: "message-1",
    state: "answered",
    answer: { option_id: optionId, text },
  });
  const source = { method: "GET", url: "https://messaging.example/v1/interactions/interaction-1" };

  it("is read up to its cap and makes the interaction unreadable past it", () => {
    const longest = "n".repeat(maximumAnswerTextLength);
    expect(parseInteraction(interaction(longest), source, "interaction-1").answer?.text).toBe(
      longest,
    );
    const error = (() => {
      try {
        parseInteraction(interaction(`${longest}n`), source, "interaction-1");
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(UnexpectedAnswerError);
    expect(error?.message).toContain(
      `answer.text is ${maximumAnswerTextLength + 1} characters long, more than the ${maximumAnswerTextLength} an answer may have`,
    );
  });

  it("choosing actions is refused past its own cap, before its note is read", () => {
    const expected = {
      interactionId: "interaction-1",
      messageId: "message-1",
      fingerprint: "f",
      recordedFingerprint: undefined,
      toolName: "delete_callbacks",
      number: 1,
      offered: [1, 2],
    };
    const list = (length: number) => {
      const read = parseInteraction(
        interaction(`1: ${"n".repeat(length - 3)}`, "approve_some"),
        source,
        "interaction-1",
      );
      return judgeBatchItem(read, expected);
    };
    expect(list(maximumItemSelectionLength)).toMatchObject({ outcome: "approved" });
    expect(list(maximumItemSelectionLength + 1)).toMatchObject({
      outcome: "refused",
      code: "unreadable_answer",
      reason: expect.stringContaining(
        `it is ${maximumItemSelectionLength + 1} characters long, more than the ${maximumItemSelectionLength} an answer choosing actions may have`,
      ),
    });
  });
});

describe("a model's tool-call arguments", () => {
  const cap = 1_000_000;
  async function callWith(argumentsLength: number) {
    const received: string[] = [];
    const tool = defineTool({
      name: "save_note",
      description: "Saves a note.",
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => {
        received.push(text);
        return { saved: text.length };
      },
    });
    // {"text":"…"} is 11 characters around the text.
    const argumentText = JSON.stringify({ text: "a".repeat(argumentsLength - 11) });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "save_note", arguments: argumentText }] },
      { text: "done" },
    ]);
    const result = await new Agent({ model, tools: [tool] }).run("save it");
    return { record: result.steps[0]?.toolCalls[0], received };
  }

  it("are read up to the cap and refused as invalid past it, before they are parsed", async () => {
    const under = await callWith(cap);
    expect(under.record?.status).toBe("succeeded");
    expect(under.received[0]).toHaveLength(cap - 11);

    const over = await callWith(cap + 1);
    expect(over.record?.status).toBe("invalid_arguments");
    expect(over.received).toEqual([]);
    expect(over.record?.content).toContain(
      `the arguments are ${cap + 1} characters long, more than the ${cap} a tool call may have; send shorter arguments`,
    );
  });
});

describe("an MCP tool result", () => {
  const cap = 1_000_000;
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  async function resultOf(length: number) {
    const server = new McpServer({ name: "big", version: "1" });
    server.registerTool(
      "read_file",
      { description: "Reads a file.", annotations: { readOnlyHint: true } },
      () => ({
        content: [
          { type: "text", text: "r".repeat(length - 1_000) },
          { type: "text", text: "s".repeat(1_000) },
        ],
      }),
    );
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: "switchyard-agent", version: "1.0.0" });
    await client.connect(clientTransport);
    clients.push(client);
    const [tool] = await mcpTools(client, { serverName: "big", trusted: true });
    const model = new ScriptedModel([
      { toolCalls: [{ name: tool!.name, arguments: {} }] },
      { text: "done" },
    ]);
    const result = await new Agent({ model, tools: [tool!] }).run("read it");
    return result.steps[0]?.toolCalls[0];
  }

  it("is read up to the cap and fails the call past it", async () => {
    const under = await resultOf(cap);
    expect(under?.status).toBe("succeeded");
    const over = await resultOf(cap + 1);
    expect(over?.status).toBe("failed");
    expect(over?.content).toContain(
      `answered with a result of ${cap + 1} characters, more than the ${cap} a tool result may have; it was not read`,
    );
  });
});
