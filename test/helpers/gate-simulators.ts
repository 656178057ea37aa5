import { type Approver, MessagingApprover } from "switchyard-agents";
import { createExampleServices, simulatorEndpoints } from "switchyard-agents/cli";
import { reasonerScenarios, type Simulators, startSimulators } from "switchyard-agents/simulators";
import { expect } from "vitest";
import { callbackCleanup } from "../../examples/callback-cleanup.js";
import type { OrderClient } from "../../src/clients/orders/order-client.js";
import { retiredCallbackHost } from "../../src/simulators/orders/seed-callbacks.js";
import type { ScenarioFunction } from "../../src/simulators/reasoner/scripted-answer.js";
import type { HeadlessChromium } from "./headless-chromium.js";

/**
 * callback-cleanup, except that a deletion of several callbacks is asked
 * as two calls in one answer (parallel calls).
 */
export const splitDeletions: ScenarioFunction = async (request, context) => {
  const answer = await reasonerScenarios["callback-cleanup"](request, context);
  if (typeof answer === "string") return answer;
  const call = answer.toolCalls?.[0];
  const ids = (call?.arguments as { callback_ids?: string[] } | undefined)?.callback_ids;
  if (call?.name !== "delete_callbacks" || !ids || ids.length < 2) return answer;
  const half = Math.ceil(ids.length / 2);
  return {
    ...answer,
    toolCalls: [
      { name: "delete_callbacks", arguments: { callback_ids: ids.slice(0, half) } },
      { name: "delete_callbacks", arguments: { callback_ids: ids.slice(half) } },
    ],
  };
};

/**
 * The simulators an agent of another framework runs against: the reasoner
 * playing callback-cleanup (or `scenario`, when a test sets it), orders,
 * and messaging, where the simulated person answers.
 */
export interface GateSimulators {
  simulators: Simulators;
  orders: OrderClient;
  /** The simulated person's subscription link. */
  approverLinkId: string;
  /** The scripted model the reasoner plays; reset to callback-cleanup by `reset`. */
  scenario: ScenarioFunction;
  /** The task callback-cleanup plays. */
  task: string;
  /** The ids of the callbacks pointing at the retired host, now. */
  retiredIds(): string[];
  /** The deletions the orders simulator received. */
  deletions(): Array<{ body: unknown }>;
  /** A messaging approver on the simulated person's link, polling fast. */
  messagingApprover(options?: { timeoutMs?: number }): Approver;
  /** Restores the seeded data; the person approves. */
  reset(): void;
  close(): Promise<void>;
}

export async function startGateSimulators(): Promise<GateSimulators> {
  const harness = {} as GateSimulators;
  harness.scenario = reasonerScenarios["callback-cleanup"];
  const simulators = await startSimulators({
    reasoner: { scenario: (request, context) => harness.scenario(request, context) },
    messaging: { answerDelayMs: 5, deliveryStepMs: 1 },
  });
  const services = createExampleServices(simulatorEndpoints(simulators));
  const hostOf = (url: string) => new URL(url).hostname;
  return Object.assign(harness, {
    simulators,
    orders: services.orders,
    approverLinkId: services.approverLinkId,
    task: callbackCleanup.defaultTask,
    retiredIds: () =>
      simulators.orders
        .callbacks()
        .filter((callback) => hostOf(callback.url) === retiredCallbackHost)
        .map((callback) => callback.id),
    deletions: () =>
      simulators.orders.requests.filter(
        (request) => request.method === "DELETE" && request.path.endsWith("/callbacks"),
      ),
    messagingApprover: (options: { timeoutMs?: number } = {}) =>
      new MessagingApprover({
        client: services.messaging,
        subscriptionLinkId: services.approverLinkId,
        pollIntervalMs: 5,
        maxPollIntervalMs: 20,
        ...options,
      }),
    reset: () => {
      harness.scenario = reasonerScenarios["callback-cleanup"];
      simulators.orders.reset();
      simulators.messaging.reset();
      simulators.messaging.setAnswer("approve");
    },
    close: () => simulators.close(),
  });
}

/** The simulated person answers only once `count` questions are out (so they must be asked at once). */
export function answerOnceAsked(simulators: Simulators, count: number) {
  return async (_question: unknown, context?: { signal: AbortSignal }) => {
    while (simulators.messaging.interactions().length < count && !context?.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return { option_id: "approve" };
  };
}

/** The person edits the call to delete only `id`. */
export function answerWithEdit(id: string | undefined) {
  return () => ({ option_id: "edit", text: JSON.stringify({ callback_ids: [id] }) });
}

/**
 * The person opens the messaging simulator's inbox page in Chromium, finds
 * the pending question (its text holding `shown`) and presses `button`;
 * resolves once the page shows the answer.
 */
export async function answerOnInboxPage(
  chromium: HeadlessChromium,
  simulators: Simulators,
  shown: string,
  button: "Approve" | "Deny",
): Promise<void> {
  const page = await chromium.browser.newPage();
  await page.goto(simulators.messaging.inboxUrl);
  const question = page.locator("article.interaction.pending");
  await question.waitFor({ timeout: 30_000 });
  expect(await question.locator(".text").innerText()).toContain(shown);
  await question.getByRole("button", { name: button, exact: true }).click();
  await page.locator("article.interaction .outcome.answered").waitFor();
  await page.close();
}
