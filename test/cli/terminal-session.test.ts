import { describe, expect, it } from "vitest";
import { spawnInTerminal, type TerminalSession } from "./spawn-in-terminal.js";
import { runSwitchyard } from "./spawn-switchyard.js";

const switchyard = "node --import tsx src/cli/main.ts";

/** What `switchyard sim` printed after `export `, by variable. */
function exportedVariables(output: string): Record<string, string> {
  return Object.fromEntries(
    [...output.matchAll(/^export (\w+)=(\S+)$/gm)].map((match) => [match[1]!, match[2]!]),
  );
}

/** Sends an approval-style interaction to the approver's link of a running `switchyard sim`. */
async function askThroughSim(session: TerminalSession, key: string): Promise<string> {
  await session.waitFor("export SWITCHYARD_APPROVER_LINK=");
  const variables = exportedVariables(session.output());
  const response = await fetch(`${variables.SWITCHYARD_MESSAGING_URL}/v1/messages`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${variables.SWITCHYARD_MESSAGING_TOKEN}`,
      "content-type": "application/json",
      "idempotency-key": key,
    },
    body: JSON.stringify({
      subscription_link_id: variables.SWITCHYARD_APPROVER_LINK,
      kind: "interaction",
      text: `Delete callback ${key}?`,
      options: [
        { id: "approve", label: "Approve" },
        { id: "deny", label: "Deny" },
      ],
    }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { interaction_id: string }).interaction_id;
}

async function interactionOf(session: TerminalSession, interactionId: string) {
  const variables = exportedVariables(session.output());
  const response = await fetch(
    `${variables.SWITCHYARD_MESSAGING_URL}/v1/interactions/${interactionId}`,
    { headers: { authorization: `Bearer ${variables.SWITCHYARD_MESSAGING_TOKEN}` } },
  );
  return (await response.json()) as { state: string; answer?: { option_id: string } };
}

describe("the approval prompt at a terminal", () => {
  it("refuses at once when the input ends (Ctrl-D), with a line saying so", async () => {
    const session = spawnInTerminal(`${switchyard} run callback-cleanup`);
    await session.waitFor("Your choice");
    session.press("\x04");

    expect(await session.exited).toBe(0);
    const output = session.output();
    expect(output).toContain("asked at this terminal");
    expect(output).toContain("(no more input: refused)");
    expect(output).toContain("refused (denied)");
    expect(output).toContain("Nothing was deleted");
    expect(output).toMatch(/run completed \(/);
    // The end of the input is no note of the approver's.
    expect(output).not.toMatch(/their note|Their note|No answer/);
  });

  it("shows a refusal's note once, and no waiting line once the person answered", async () => {
    const session = spawnInTerminal(`${switchyard} run callback-cleanup`);
    await session.waitFor("Your choice");
    session.press("2: not now\r");

    expect(await session.exited).toBe(0);
    const output = session.output();
    const afterAnswer = output.slice(output.indexOf("Your choice"));
    expect(afterAnswer).not.toContain("waiting for approval");
    expect(afterAnswer).toMatch(
      / {2}refused \(denied\) after \S+: The approver denied "delete_callbacks"\.\r?\n/,
    );
    expect(afterAnswer.match(/their note: "not now"/g)).toHaveLength(1);
    expect(afterAnswer).toContain("Nothing was deleted");
  });

  it("shows the note given with an approval", async () => {
    const session = spawnInTerminal(`${switchyard} run callback-cleanup`);
    await session.waitFor("Your choice");
    session.press("1: the new host is live\r");

    expect(await session.exited).toBe(0);
    const afterAnswer = session.output().slice(session.output().indexOf("Your choice"));
    expect(afterAnswer).not.toContain("waiting for approval");
    expect(afterAnswer).toMatch(
      / {2}approved (?:by subscription link \S+ )?after \S+\r?\n {2}their note: "the new host is live"/,
    );
    expect(afterAnswer).toContain("Deleted 4 callbacks");
  });

  it("refuses at once when the terminal's input had already ended", async () => {
    const session = spawnInTerminal(`${switchyard} run callback-cleanup`);
    session.endInput();

    expect(await session.exited).toBe(0);
    expect(session.output()).toContain("(no more input: refused)");
    expect(session.output()).toContain("Nothing was deleted");
  });

  it("prints nothing after the run's summary on Ctrl-C, and exits 1", async () => {
    const session = spawnInTerminal(`${switchyard} run callback-cleanup`);
    await session.waitFor("Your choice");
    session.press("\x03");

    expect(await session.exited).toBe(1);
    const output = session.output();
    const summary = output.indexOf("run aborted (");
    expect(summary).toBeGreaterThan(0);
    const afterSummary = output.slice(output.indexOf("\n", summary) + 1);
    expect(afterSummary.trim()).toBe("");
  });

  it("exits with npm's own 130 on Ctrl-C through npm run", async () => {
    const session = spawnInTerminal("npm run --silent switchyard -- run callback-cleanup");
    await session.waitFor("Your choice");
    session.press("\x03");

    expect(await session.exited).toBe(130);
    expect(session.output()).not.toContain("no more input");
  });
});

describe("switchyard sim asking at a terminal", () => {
  it("refuses each question at once once the input ended, then stops quietly", async () => {
    const session = spawnInTerminal(`${switchyard} sim`);
    const first = await askThroughSim(session, "first");
    await session.waitFor("Delete callback first?");
    session.press("\x04");
    await session.waitFor("(no more input: refused)");
    const second = await askThroughSim(session, "second");
    for (const interactionId of [first, second]) {
      let interaction = await interactionOf(session, interactionId);
      while (interaction.state === "pending") {
        await new Promise((resolve) => setTimeout(resolve, 20));
        interaction = await interactionOf(session, interactionId);
      }
      expect(interaction).toMatchObject({ state: "answered", answer: { option_id: "deny" } });
    }
    session.press("\x03");

    expect(await session.exited).toBe(0);
    expect(session.output().trimEnd()).toMatch(/SIGINT: simulators stopped\.$/);
  });

  it("prints nothing after it stops on Ctrl-C while a question is open", async () => {
    const session = spawnInTerminal(`${switchyard} sim`);
    await askThroughSim(session, "open");
    await session.waitFor("Your choice");
    session.press("\x03");

    expect(await session.exited).toBe(0);
    expect(session.output()).not.toContain("no more input");
    expect(session.output().trimEnd()).toMatch(/SIGINT: simulators stopped\.$/);
  });
});

describe("--approve ask without a terminal", () => {
  const refusal =
    "switchyard: --approve ask needs a terminal (stdin and stderr), and this command has none, so nobody could answer: use --approve approve or --approve deny, or run it at a terminal.\n";

  it("is a usage error for run", async () => {
    const finished = await runSwitchyard(["run", "callback-cleanup", "--approve", "ask"]);

    expect(finished).toMatchObject({ code: 2, stdout: "", stderr: refusal });
  });

  it("is a usage error for sim", async () => {
    const finished = await runSwitchyard(["sim", "--approve", "ask"]);

    expect(finished).toMatchObject({ code: 2, stdout: "", stderr: refusal });
  });
});
