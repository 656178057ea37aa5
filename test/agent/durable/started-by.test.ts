import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunStateError } from "../../../src/agent/durable/durable-errors.js";
import { InMemoryRunStore } from "../../../src/agent/durable/in-memory-run-store.js";
import { parseRunState } from "../../../src/agent/durable/parse-run-state.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import {
  approvedBy,
  by,
  deletionAgent,
  notYet,
  PeopleApprover,
  startedByKeptAcrossResume,
  testDirectory,
} from "../approval/people-approver.js";
import { useTemporaryDirectories } from "./durable-helpers.js";

const makeDirectory = useTemporaryDirectories();

describe("who started a run is kept in its state", () => {
  it("in a FileRunStore, across a suspend and a resume by another agent", async () => {
    await startedByKeptAcrossResume(new FileRunStore({ directory: await makeDirectory() }));
  });

  it("in an InMemoryRunStore", async () => {
    await startedByKeptAcrossResume(new InMemoryRunStore());
  });

  it("a sealed state whose startedBy was changed by hand is not resumed", async () => {
    const directory = await makeDirectory();
    const stateKey = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978";
    const agentWith = (approver: PeopleApprover) =>
      deletionAgent({
        approver,
        approverDirectory: testDirectory(),
        runStore: new FileRunStore({ directory }),
        stateKey,
      });
    const suspended = await agentWith(new PeopleApprover([notYet])).agent.run("tidy", {
      startedBy: "bob",
      suspendOnApproval: true,
    });
    expect(suspended.status).toBe("suspended");
    // Someone rewrites who started the run, to approve it themselves.
    const file = join(directory, "runs", `${suspended.runId}.json`);
    const text = await readFile(file, "utf8");
    expect(text).toContain('"startedBy": "bob"');
    await writeFile(file, text.replace('"startedBy": "bob"', '"startedBy": "carol"'));
    const resumed = agentWith(new PeopleApprover([approvedBy(by.bob)]));
    await expect(resumed.agent.resume(suspended.runId as string)).rejects.toThrow(
      /seal does not match/,
    );
    expect(resumed.deleted).toEqual([]);
  });

  it("a saved state's startedBy must be a directory id or a channel identity", () => {
    const state = {
      format: "switchyard.run-state",
      version: 1,
      runId: "run_1",
      revision: 0,
      status: "completed",
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      maxSteps: 10,
      stepCount: 0,
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      messages: [],
      pendingCalls: [],
    };
    expect(
      parseRunState({ ...state, startedBy: { channel: "agUi", id: "a@example.com" } }).startedBy,
    ).toEqual({
      channel: "agUi",
      id: "a@example.com",
    });
    expect(() => parseRunState({ ...state, startedBy: { channel: "pager", id: "x" } })).toThrow(
      RunStateError,
    );
    expect(() => parseRunState({ ...state, startedBy: 7 })).toThrow(/startedBy must be/);
  });
});
