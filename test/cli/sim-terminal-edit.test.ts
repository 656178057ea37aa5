import type { RunReport } from "switchyard-agents/cli";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.js";
import { createTestIo } from "./cli-test-io.js";
import { spawnInTerminal, type TerminalSession } from "./spawn-in-terminal.js";

let session: TerminalSession | undefined;
afterEach(async () => {
  session?.press("\x03");
  await session?.exited;
});

describe("switchyard sim --approve ask: changing the action at its terminal", () => {
  it("a run with --allow-edits runs only the action as the person typed it", async () => {
    session = spawnInTerminal("node --import tsx src/cli/main.ts sim --approve ask");
    await session.waitFor("export SWITCHYARD_APPROVER_LINK=");
    const env = Object.fromEntries(
      [...session.output().matchAll(/^export (\w+)=(\S+)$/gm)].map((match) => [
        match[1]!,
        match[2]!,
      ]),
    );
    const test = createTestIo({ env });
    const running = runCli(["run", "callback-cleanup", "--allow-edits", "--json"], test.io);

    await session.waitFor("Your choice (1-");
    const shown = /Its arguments now: (.+)$/m.exec(session.output())?.[1];
    const asked = (JSON.parse(shown!) as { callback_ids: string[] }).callback_ids;
    expect(asked).toHaveLength(4);
    const edit = /choose (\d+), then type its whole arguments as JSON/.exec(session.output())?.[1];
    session.press(`${edit}\r`);
    await session.waitFor("The changed arguments, as JSON on one line");
    session.press(`${JSON.stringify({ callback_ids: [asked[2]] })}\r`);

    expect(await running).toBe(0);
    const report = JSON.parse(test.stdout()) as RunReport;
    expect(report.approvals).toEqual([
      expect.objectContaining({
        outcome: "approved",
        editedArguments: { callback_ids: [asked[2]] },
      }),
    ]);
    expect(report.toolCalls.find((call) => call.name === "delete_callbacks")).toMatchObject({
      status: "succeeded",
      arguments: { callback_ids: [asked[2]] },
      result: { result: { deleted: 1 } },
    });
    expect(report.output).toMatch(
      /^The person changed the deletion before approving it\. Deleted 1 callback that pointed at/,
    );
  });
});
