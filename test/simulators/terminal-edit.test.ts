import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { InteractionQuestion } from "../../src/simulators/messaging/answer-mode.js";
import {
  type TerminalAnswerer,
  terminalAnswerer,
} from "../../src/simulators/messaging/terminal-answerer.js";

const editable: InteractionQuestion = {
  interaction_id: "i-1",
  message_id: "m-1",
  subscription_link_id: "l-1",
  text: "Delete 2 callbacks?",
  options: [
    { id: "approve", label: "Approve" },
    { id: "deny", label: "Deny" },
    { id: "edit", label: "Approve with changes" },
  ],
  metadata: { tool: "delete_callbacks", arguments: { callback_ids: ["cb-1", "cb-2\u202e"] } },
};

/** The parameters of a tool deleting callbacks by id, as the question carries them. */
const callbackIdsSchema = {
  type: "object",
  properties: { callback_ids: { type: "array", items: { type: "string" }, minItems: 1 } },
  required: ["callback_ids"],
  additionalProperties: false,
};

let answer: TerminalAnswerer | undefined;
afterEach(() => answer?.close());

/** A terminal answerer on streams the test types into and reads. */
function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  answer = terminalAnswerer({ input, output });
  return { answer, input, printed: () => printed };
}

describe("changing the action at the terminal (Approve with changes)", () => {
  it("shows the arguments as JSON to start from, then reads the changed ones on a line of their own", async () => {
    const { answer, input, printed } = terminal();
    const pending = answer(editable);
    input.write("3\n");
    input.write('{"callback_ids":["cb-1"]}\n');

    expect(await pending).toEqual({ option_id: "edit", text: '{"callback_ids":["cb-1"]}' });
    expect(printed()).toContain("3) Approve with changes [edit]");
    expect(printed()).toContain("choose 3, then type its whole arguments as JSON on one line");
    // Written out as a JSON escape: shown, never obeyed, and it still reads back as the value.
    expect(printed()).toContain('Its arguments now: {"callback_ids":["cb-1","cb-2\\u202e"]}');
    expect(printed()).not.toContain("\u202e");
    expect(printed()).toContain("The changed arguments, as JSON on one line");
  });

  it("takes the changed arguments after the choice, and asks again for text that is not JSON", async () => {
    const { answer, input, printed } = terminal();
    const pending = answer(editable);
    input.write("edit: {callback_ids: [cb-1]\n");
    input.write('{"callback_ids":["cb-2"]}\n');

    expect(await pending).toEqual({ option_id: "edit", text: '{"callback_ids":["cb-2"]}' });
    expect(printed()).toMatch(
      /Not sent: the changed arguments are not JSON \(.+\)\. Type the changed arguments again/,
    );
  });

  it("asks again, saying what is wrong, for changed arguments the tool's parameters do not take", async () => {
    const { answer, input, printed } = terminal();
    const pending = answer({
      ...editable,
      metadata: { ...editable.metadata, arguments_schema: callbackIdsSchema },
    });
    input.write('3: {"callback_ids":"cb-1"}\n');
    input.write('{"callback_ids":[],"extra":1}\n');
    input.write('{"callback_ids":["cb-1"]}\n');

    expect(await pending).toEqual({ option_id: "edit", text: '{"callback_ids":["cb-1"]}' });
    expect(printed()).toContain(
      "Not sent: the changed arguments do not fit the tool's parameters: callback_ids: must be array. Type the changed arguments again",
    );
    expect(printed()).toContain("callback_ids: must NOT have fewer than 1 items");
    expect(printed()).toContain("must NOT have additional properties");
    expect(printed()).not.toMatch(/approved/i);
  });

  it("goes back to the options on an empty line, and refuses when the input ends while editing", async () => {
    const { answer, input, printed } = terminal();
    const first = answer(editable);
    input.write("3\n\n2: not like this\n");
    expect(await first).toEqual({ option_id: "deny", text: "not like this" });
    expect(printed().match(/Your choice \(1-3/g)).toHaveLength(2);

    const second = answer({ ...editable, interaction_id: "i-2" });
    input.write("3\n");
    input.end();
    expect(await second).toEqual({ option_id: "deny" });
    expect(printed()).toContain("(no more input: refused)");
  });

  it("says nothing of changes when the question offers none", async () => {
    const { answer, input, printed } = terminal();
    const pending = answer({ ...editable, options: editable.options.slice(0, 2) });
    input.write("1\n");
    expect(await pending).toEqual({ option_id: "approve" });
    expect(printed()).not.toContain("JSON");
  });
});
