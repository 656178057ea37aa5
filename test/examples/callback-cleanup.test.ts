import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbackCleanup } from "../../examples/callback-cleanup.js";
import { retiredCallbackHost } from "../../src/simulators/orders/seed-callbacks.js";
import { type ExampleHarness, startExampleHarness } from "./example-harness.js";

let harness: ExampleHarness;
beforeAll(async () => {
  harness = await startExampleHarness("callback-cleanup");
});
afterAll(() => harness.close());

const hostOf = (url: string) => new URL(url).hostname;

describe("callback-cleanup example", () => {
  it("deletes exactly the callbacks on the retired host once the person approves", async () => {
    harness.reset("approve");
    const { orders, messaging } = harness.simulators;
    const before = orders.callbacks();
    const retired = before.filter((callback) => hostOf(callback.url) === retiredCallbackHost);
    expect(retired.length).toBeGreaterThan(0);

    const result = await callbackCleanup
      .createAgent(harness.services)
      .run(callbackCleanup.defaultTask);

    expect(result.status).toBe("completed");
    const after = orders.callbacks();
    expect(after.map((callback) => callback.id).sort()).toEqual(
      before
        .filter((callback) => hostOf(callback.url) !== retiredCallbackHost)
        .map((callback) => callback.id)
        .sort(),
    );
    // The look-alike host of the same vendor is not the retired host.
    expect(after.map((callback) => callback.url)).toContain(
      "https://reports.old-warehouse.example/acme/snapshots",
    );
    const [interaction] = messaging.interactions();
    expect(messaging.interactions()).toHaveLength(1);
    expect(interaction?.state).toBe("answered");
    expect(result.output).toContain(`Deleted ${retired.length} callbacks`);
  });

  it("deletes nothing and says why when the person denies", async () => {
    harness.reset("deny");
    const { orders } = harness.simulators;
    const before = orders.callbacks();

    const result = await callbackCleanup
      .createAgent(harness.services)
      .run(callbackCleanup.defaultTask);

    expect(result.status).toBe("completed");
    expect(orders.callbacks()).toEqual(before);
    const deletion = result.steps
      .flatMap((step) => step.toolCalls)
      .find((call) => call.toolName === "delete_callbacks");
    expect(deletion?.status).toBe("refused");
    expect(deletion?.approval).toMatchObject({ outcome: "refused", code: "denied" });
    expect(result.output).toMatch(/Nothing was deleted/);
  });
});
