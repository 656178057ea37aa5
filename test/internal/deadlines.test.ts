import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startDeadline } from "../../src/internal/deadlines.js";

const run = promisify(execFile);
const deadlinesModule = fileURLToPath(new URL("../../src/internal/deadlines.ts", import.meta.url));

describe("startDeadline", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("fires once its time has passed, not a millisecond before, and only once", () => {
    const fired: string[] = [];
    startDeadline(1_000, () => fired.push("first"));
    vi.advanceTimersByTime(999);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["first"]);
    vi.advanceTimersByTime(10_000);
    expect(fired).toEqual(["first"]);
  });

  it("fires each deadline of one length at its own time, those started later later", () => {
    const fired: string[] = [];
    startDeadline(1_000, () => fired.push("a"));
    vi.advanceTimersByTime(300);
    startDeadline(1_000, () => fired.push("b"));
    vi.advanceTimersByTime(700);
    expect(fired).toEqual(["a"]);
    vi.advanceTimersByTime(299);
    expect(fired).toEqual(["a"]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["a", "b"]);
  });

  it("never fires a cleared deadline, and fires the others of its length", () => {
    const fired: string[] = [];
    const cleared = startDeadline(500, () => fired.push("cleared"));
    startDeadline(500, () => fired.push("kept"));
    cleared.clear();
    cleared.clear();
    vi.advanceTimersByTime(500);
    expect(fired).toEqual(["kept"]);
    cleared.refresh();
    vi.advanceTimersByTime(5_000);
    expect(fired).toEqual(["kept"]);
  });

  it("starts the wait again on refresh, behind deadlines started since", () => {
    const fired: string[] = [];
    const refreshed = startDeadline(1_000, () => fired.push("refreshed"));
    vi.advanceTimersByTime(400);
    startDeadline(1_000, () => fired.push("other"));
    vi.advanceTimersByTime(400);
    refreshed.refresh();
    vi.advanceTimersByTime(999);
    expect(fired).toEqual(["other"]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["other", "refreshed"]);
    // Fired: a refresh does not start it again.
    refreshed.refresh();
    vi.advanceTimersByTime(5_000);
    expect(fired).toEqual(["other", "refreshed"]);
  });

  it("keeps deadlines of different lengths apart", () => {
    const fired: string[] = [];
    startDeadline(3_000, () => fired.push("long"));
    startDeadline(1_000, () => fired.push("short"));
    startDeadline(2_000, () => fired.push("middle"));
    vi.advanceTimersByTime(3_000);
    expect(fired).toEqual(["short", "middle", "long"]);
  });

  it("works again after its lane emptied, and for one started while others expire", () => {
    const fired: string[] = [];
    startDeadline(100, () => {
      fired.push("first");
      startDeadline(100, () => fired.push("started by the first"));
    });
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(["first"]);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(["first", "started by the first"]);
    vi.advanceTimersByTime(1_000);
    startDeadline(100, () => fired.push("later"));
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(["first", "started by the first", "later"]);
  });

  it("times a length no lane takes (a fraction, zero) as setTimeout does", () => {
    const fired: string[] = [];
    startDeadline(2.5, () => fired.push("fraction"));
    startDeadline(0, () => fired.push("zero"));
    const cleared = startDeadline(0.5, () => fired.push("cleared"));
    cleared.clear();
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["zero"]);
    vi.advanceTimersByTime(2);
    expect(fired).toEqual(["zero", "fraction"]);
  });
});

/** Runs `source` (an ES module importing `startDeadline`) in a fresh Node process. */
async function runScript(
  source: string,
): Promise<{ stdout: string; stderr: string; code: number }> {
  const script = `import { startDeadline } from ${JSON.stringify(deadlinesModule)};\n${source}`;
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "--eval", script],
      { timeout: 30_000 },
    );
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}

describe("startDeadline in a process of its own", () => {
  it("keeps the process alive while a deadline is pending, and not once it is cleared", async () => {
    const pending = await runScript(
      `startDeadline(200, () => console.log("fired"));
       process.on("exit", () => console.log("exit"));`,
    );
    expect(pending.stdout.split("\n").filter(Boolean)).toEqual(["fired", "exit"]);

    const cleared = await runScript(
      `const first = startDeadline(60_000, () => console.log("fired"));
       startDeadline(60_000, () => console.log("fired")).clear();
       first.clear();
       process.on("exit", () => console.log("exit"));`,
    );
    expect(cleared.stdout.split("\n").filter(Boolean)).toEqual(["exit"]);
  });

  it("keeps no process alive with keepsProcessAlive false", async () => {
    const result = await runScript(
      `startDeadline(60_000, () => console.log("fired"), false);
       process.on("exit", () => console.log("exit"));`,
    );
    expect(result.stdout.split("\n").filter(Boolean)).toEqual(["exit"]);
  });

  it("runs every due deadline when one throws, and reports the throw as uncaught", async () => {
    const result = await runScript(
      `startDeadline(50, () => { throw new Error("thrown by the first"); });
       startDeadline(50, () => console.log("second fired"));
       // Both are due by the time the event loop turns.
       const busyUntil = performance.now() + 120;
       while (performance.now() < busyUntil);`,
    );
    expect(result.stdout).toContain("second fired");
    expect(result.stderr).toContain("thrown by the first");
    expect(result.code).not.toBe(0);
  });
});
