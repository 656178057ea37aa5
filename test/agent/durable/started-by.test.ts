import { describe, expect, it } from "vitest";
import { RunStateError } from "../../../src/agent/durable/durable-errors.js";
import { InMemoryRunStore } from "../../../src/agent/durable/in-memory-run-store.js";
import { parseRunState } from "../../../src/agent/durable/parse-run-state.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { startedByKeptAcrossResume } from "../approval/people-approver.js";
import { useTemporaryDirectories } from "./durable-helpers.js";

const makeDirectory = useTemporaryDirectories();

describe("who started a run is kept in its state", () => {
  it("in a FileRunStore, across a suspend and a resume by another agent", async () => {
    await startedByKeptAcrossResume(new FileRunStore({ directory: await makeDirectory() }));
  });

  it("in an InMemoryRunStore", async () => {
    await startedByKeptAcrossResume(new InMemoryRunStore());
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
