import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  approverDirectory,
  loadApproverDirectory,
} from "../../../src/agent/approval/approver-directory.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { approvedBy, deletionAgent, PeopleApprover } from "./people-approver.js";

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(
    directories.map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

/** Writes `text` to a new file and returns its path. */
async function file(text: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "switchyard-directory-"));
  directories.push(directory);
  const path = join(directory, "approvers.json");
  await writeFile(path, text);
  return path;
}

const people = {
  people: [
    {
      id: "alice",
      name: "Alice Ng",
      roles: ["oncall"],
      identities: { terminal: ["alice"], mcp: ["alice@corp"] },
    },
    { id: "bob", roles: ["lead"], identities: { terminal: ["bob"] } },
  ],
};

describe("an approver directory as a JSON file (loadApproverDirectory)", () => {
  it("reads people, roles and identities; recognises each channel's evidence on its own channel", async () => {
    const directory = await loadApproverDirectory(await file(JSON.stringify(people)));
    expect(await directory.recognize({ channel: "terminal", id: "alice" })).toMatchObject({
      id: "alice",
      name: "Alice Ng",
    });
    expect(await directory.recognize({ channel: "mcp", id: "alice@corp" })).toMatchObject({
      id: "alice",
    });
    // The same text on another channel is not the same evidence.
    expect(await directory.recognize({ channel: "agUi", id: "alice" })).toBeUndefined();
    expect(await directory.person("bob")).toMatchObject({ id: "bob", name: "bob" });
    expect(await directory.person("carol")).toBeUndefined();
    expect((await directory.withRoles?.(["lead"]))?.map((person) => person.id)).toEqual(["bob"]);
    expect((await directory.withRoles?.([]))?.map((person) => person.id)).toEqual(["alice", "bob"]);
  });

  it("gates a run: the file's person answering at the terminal is recognised by name", async () => {
    const directory = await loadApproverDirectory(await file(JSON.stringify(people)));
    const { agent, deleted } = deletionAgent({
      approver: new PeopleApprover([approvedBy({ channel: "terminal", id: "bob" })]),
      approverDirectory: directory,
      approvalPolicy: { defaultApprovers: { roles: ["lead"] } },
    });
    const result = await agent.run("tidy", { startedBy: "alice" });
    expect(deleted).toEqual([["cb-1"]]);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({
      people: [{ id: "bob", name: "bob", channel: "terminal", evidence: "bob" }],
    });
  });

  it("a file that cannot be read, or is not JSON, says so and what it must hold", async () => {
    const missing = join(tmpdir(), "switchyard-no-such-directory", "approvers.json");
    await expect(loadApproverDirectory(missing)).rejects.toThrow(
      new RegExp(`the approver directory ${missing} cannot be read \\(ENOENT\\)`),
    );
    const broken = await file("{ people: [");
    await expect(loadApproverDirectory(broken)).rejects.toThrow(
      /is not JSON .*it must hold \{ "people"/,
    );
  });

  it("names every problem of the entries at once, each with the file and the entry", async () => {
    const path = await file(
      JSON.stringify({
        people: [
          "alice",
          { name: "no id" },
          { id: "bob", name: "", roles: "lead" },
          { id: "bob" },
          { id: "carol", identities: ["sl_carol"] },
          { id: "dave", identities: { pager: ["d"], messaging: "sl_dave" } },
          { id: "erin", identities: { terminal: ["shared"] } },
          { id: "frank", identities: { terminal: ["shared"] } },
        ],
      }),
    );
    const error = await loadApproverDirectory(path).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    const problems = (error as ConfigurationError).problems;
    const expected = [
      /people\[0\] must be an object \{ id, name, roles, identities \}/,
      /people\[1\]\.id must be a non-empty string/,
      /people\[2\]\.name must be a non-empty string/,
      /people\[2\]\.roles must be a list of role names/,
      /people\[3\]\.id "bob" is used by another person; ids must be unique/,
      /people\[4\]\.identities must be an object such as/,
      /people\[5\]\.identities\.pager is not a channel; the channels are messaging, agUi, mcp, terminal/,
      /people\[5\]\.identities\.messaging must be a list of strings/,
      /people\[7\]\.identities\.terminal "shared" is also erin's: one channel identity recognises one person/,
    ];
    expect(problems).toHaveLength(expected.length);
    expected.forEach((pattern, index) => {
      expect(problems[index]).toMatch(pattern);
      expect(problems[index]?.startsWith(`${path}: `)).toBe(true);
    });
  });

  it("a file without a list of people says what it must hold", async () => {
    for (const text of ["[]", "{}", '{ "people": {} }', "null"]) {
      await expect(loadApproverDirectory(await file(text))).rejects.toThrow(
        /needs \{ people: \[\{ id, name, roles, identities \}\] \}/,
      );
    }
  });

  it("in code, the same checks (approverDirectory)", () => {
    expect(() => approverDirectory({ people: [{ id: "a" }, { id: "a" }] })).toThrow(
      /approverDirectory\.people\[1\]\.id "a" is used by another person/,
    );
    expect(() => approverDirectory(undefined as never)).toThrow(ConfigurationError);
  });
});
