import type { RunReport } from "switchyard-agents/cli";
import { describe, expect, it } from "vitest";
import { finished, spawnScript } from "../cli/spawn-switchyard.js";

describe("an example file run on its own", () => {
  it("runs through the same runner as switchyard run, flags included", async () => {
    const { code, stdout, stderr } = await finished(
      spawnScript("examples/order-report.ts", ["--json"]),
    );

    expect(code).toBe(0);
    const report = JSON.parse(stdout) as RunReport;
    expect(report).toMatchObject({ example: "order-report", status: "completed" });
    expect(report.output).toMatch(/^There are 240 orders in total/);
    expect(stderr).toContain("switchyard run order-report");
  });
});
