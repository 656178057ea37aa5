import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { docsEdit } from "../../examples/docs-edit.js";
import { retiredSupportEmail } from "../../src/simulators/docs/storefront-files.js";
import { type ExampleHarness, startExampleHarness } from "./example-harness.js";

let harness: ExampleHarness;
beforeAll(async () => {
  harness = await startExampleHarness("docs-edit");
});
afterAll(() => harness.close());

const newAddress = "support@storefront.example";

function findingsOf(result: Awaited<ReturnType<ReturnType<typeof docsEdit.createAgent>["run"]>>) {
  const check = result.steps
    .flatMap((step) => step.toolCalls)
    .find((call) => call.toolName === "check_site_config");
  if (check?.status !== "succeeded") throw new Error("check_site_config did not succeed");
  return (check.result as { findings: Array<{ severity: string; code: string }> }).findings;
}

describe("docs-edit example", () => {
  it("reports the site check and changes the page once the person approves", async () => {
    harness.reset("approve");
    const { docs } = harness.simulators;
    const before = docs.file(docs.storefrontId, "support.mdx")!.content;
    expect(before).toContain(retiredSupportEmail);

    const result = await docsEdit.createAgent(harness.services).run(docsEdit.defaultTask);

    expect(result.status).toBe("completed");
    const after = docs.file(docs.storefrontId, "support.mdx")!.content;
    expect(after).toBe(before.replace(retiredSupportEmail, newAddress));
    expect(docs.pushes()).toHaveLength(1);
    const findings = findingsOf(result);
    const errors = findings.filter((finding) => finding.severity === "error");
    expect(errors.length).toBeGreaterThan(0);
    expect(result.output).toContain(`${errors.length} error`);
    for (const finding of findings) expect(result.output).toContain(finding.code);
    expect(result.output).toMatch(/support\.mdx was changed/);
  });

  it("leaves the page as it was when the person denies", async () => {
    harness.reset("deny");
    const { docs } = harness.simulators;
    const before = docs.files(docs.storefrontId);

    const result = await docsEdit.createAgent(harness.services).run(docsEdit.defaultTask);

    expect(result.status).toBe("completed");
    expect(docs.files(docs.storefrontId)).toEqual(before);
    expect(docs.pushes()).toHaveLength(0);
    expect(result.output).toMatch(/refused/);
    expect(result.output).toMatch(/not changed/);
  });

  it("carries out the other task its header suggests, on text the page has", async () => {
    // Its own services, the person approving (the simulator refuses by default).
    const own = await startExampleHarness("docs-edit");
    onTestFinished(() => own.close());
    own.simulators.messaging.setAnswer("approve");
    const { docs } = own.simulators;
    const header = await readFile(new URL("../../examples/docs-edit.ts", import.meta.url), "utf8");
    const task = /--task '([^']+)'/.exec(header)?.[1];
    expect(task).toBeDefined();
    const find = /replace (.+) with (.+)\.$/.exec(task!)!;
    const before = docs.file(docs.storefrontId, "support.mdx")!.content;
    expect(before).toContain(find[1]);

    const result = await docsEdit.createAgent(own.services).run(task!);

    expect(result.status).toBe("completed");
    expect(docs.file(docs.storefrontId, "support.mdx")!.content).toBe(
      before.replace(find[1]!, find[2]!),
    );
    expect(result.output).toMatch(/support\.mdx was changed/);
  });
});
