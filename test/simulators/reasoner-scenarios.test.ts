import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reasonerScenarios } from "../../src/simulators/reasoner/reasoner-scenarios.js";
import type { ReasonerSimulator } from "../../src/simulators/reasoner/reasoner-simulator-options.js";
import { startReasonerSimulator } from "../../src/simulators/reasoner/start-reasoner-simulator.js";
import {
  conversation,
  nextMessage,
  onlyCall,
  type PastStep,
  tool,
  tools,
} from "./reasoner-test-helpers.js";

let simulator: ReasonerSimulator;
beforeAll(async () => {
  simulator = await startReasonerSimulator();
});
afterAll(() => simulator.close());

const orderTools = tools("list_callbacks", "delete_callbacks", "list_orders", "hold_callbacks");
const docsTools = tools(
  "list_documentations",
  "get_docs_manifest",
  "check_site_config",
  "edit_docs_file",
  "pull_docs_files",
);

function ask(task: string, steps: PastStep[], offered = orderTools) {
  return nextMessage(simulator, { messages: conversation(task, steps), tools: offered });
}

/** Plays the agent loop against the simulator: `respond` is the tool side. */
async function drive(
  task: string,
  offered: ReturnType<typeof tools>,
  respond: (name: string, args: Record<string, unknown>) => unknown,
) {
  const steps: PastStep[] = [];
  for (let turn = 0; turn < 40; turn++) {
    const message = await ask(task, steps, offered);
    if (!message.tool_calls?.length) return { text: message.content ?? "", steps };
    const call = onlyCall(message);
    steps.push({ name: call.name, args: call.args, result: respond(call.name, call.args) });
  }
  throw new Error(
    `no final answer after 40 turns: ${JSON.stringify(steps.map((step) => step.name))}`,
  );
}

const cleanupTask =
  "Remove every callback that points at the retired host hooks.old-warehouse.example. Leave all other callbacks alone.";
const ids = {
  old: "0b7c6a1e-1111-4a2b-8c3d-000000000001",
  oldSub: "0b7c6a1e-1111-4a2b-8c3d-000000000002",
  current: "0b7c6a1e-1111-4a2b-8c3d-000000000003",
  lookalike: "0b7c6a1e-1111-4a2b-8c3d-000000000004",
  legacy: "0b7c6a1e-1111-4a2b-8c3d-000000000005",
};
const callbacks = [
  { id: ids.old, url: "https://hooks.old-warehouse.example/orders", message_type: "orderEvent" },
  {
    id: ids.oldSub,
    url: "https://eu.hooks.old-warehouse.example:8443/cb",
    message_type: "shipmentEvent",
  },
  {
    id: ids.current,
    url: "https://hooks.new-warehouse.example/orders",
    message_type: "orderEvent",
  },
  {
    id: ids.lookalike,
    url: "https://nothooks.old-warehouse.example/x",
    message_type: "orderEvent",
  },
  {
    id: ids.legacy,
    url: "https://callbacks.legacy-erp.example/in",
    message_type: "inboundShipmentEvent",
  },
];
const listed = { callbacks, total: 5, shown: 5, omitted: 0 };
const listStep: PastStep = {
  name: "list_callbacks",
  args: { message_type: "all" },
  result: listed,
};
const deleteArgs = { callback_ids: [ids.old, ids.oldSub] };

describe("callback-cleanup scenario", () => {
  it("lists every callback first", async () => {
    expect(onlyCall(await ask(cleanupTask, []))).toEqual({
      name: "list_callbacks",
      args: { message_type: "all" },
    });
  });

  it("deletes exactly the callbacks on the named host and its subdomains", async () => {
    const call = onlyCall(await ask(cleanupTask, [listStep]));
    expect(call).toEqual({ name: "delete_callbacks", args: deleteArgs });
  });

  it("follows another host named in the task", async () => {
    const task =
      "Please delete the callbacks that still go to callbacks.legacy-erp.example, nothing else.";
    expect(onlyCall(await ask(task, [listStep])).args).toEqual({ callback_ids: [ids.legacy] });
  });

  it("reports the deleted URLs and counts", async () => {
    const result = {
      deleted: 2,
      failed: 0,
      results: [
        { id: ids.old, status: "success" },
        { id: ids.oldSub, status: "success" },
      ],
    };
    const message = await ask(cleanupTask, [
      listStep,
      { name: "delete_callbacks", args: deleteArgs, result },
    ]);
    expect(message.tool_calls).toBeUndefined();
    expect(message.content).toContain("Deleted 2 callbacks");
    expect(message.content).toContain("https://hooks.old-warehouse.example/orders");
    expect(message.content).toContain("https://eu.hooks.old-warehouse.example:8443/cb");
    expect(message.content).toContain("0 failed");
  });

  it("names failed deletions with their error message", async () => {
    const result = {
      deleted: 1,
      failed: 1,
      results: [
        { id: ids.old, status: "success" },
        { id: ids.oldSub, status: "failure", error_message: "already deleted" },
      ],
    };
    const message = await ask(cleanupTask, [
      listStep,
      { name: "delete_callbacks", args: deleteArgs, result },
    ]);
    expect(message.content).toContain("Deleted 1 callback ");
    expect(message.content).toContain("1 failed");
    expect(message.content).toContain("already deleted");
  });

  it("says nothing was deleted, and why, after approval_refused", async () => {
    const refusal = {
      error: "approval_refused",
      message: "The approver refused delete_callbacks.",
      reason: "change freeze until Monday",
      code: "denied",
    };
    const message = await ask(cleanupTask, [
      listStep,
      { name: "delete_callbacks", args: deleteArgs, result: refusal },
    ]);
    expect(message.tool_calls).toBeUndefined();
    expect(message.content).toMatch(/^Nothing was deleted/);
    expect(message.content).toContain("change freeze until Monday");
  });

  it("answers that no callback points at the host when none does", async () => {
    const message = await ask("Remove callbacks on hooks.nowhere.example", [listStep]);
    expect(message.tool_calls).toBeUndefined();
    expect(message.content).toContain("No callback points at hooks.nowhere.example");
  });

  it("asks for the host when the task names none", async () => {
    const message = await ask("Remove the old callbacks.", []);
    expect(message.tool_calls).toBeUndefined();
    expect(message.content).toContain("Which host");
  });

  it("says so in text when delete_callbacks is not offered", async () => {
    const message = await ask(cleanupTask, [listStep], tools("list_callbacks"));
    expect(message.tool_calls).toBeUndefined();
    expect(message.content).toContain('no "delete_callbacks" tool');
  });

  it("retries invalid ids once with the valid ones, then gives up", async () => {
    const withBadId = {
      callbacks: [
        ...callbacks,
        { id: "legacy-7", url: "https://hooks.old-warehouse.example/legacy" },
      ],
      total: 6,
      shown: 6,
      omitted: 0,
    };
    const list = { ...listStep, result: withBadId };
    const invalid = { error: "invalid_arguments", message: "callback_ids[2] must be a UUID" };
    const sent = { callback_ids: [ids.old, ids.oldSub, "legacy-7"] };
    expect(onlyCall(await ask(cleanupTask, [list])).args).toEqual(sent);
    const fixed = onlyCall(
      await ask(cleanupTask, [list, { name: "delete_callbacks", args: sent, result: invalid }]),
    );
    expect(fixed.args).toEqual(deleteArgs);
    const message = await ask(cleanupTask, [
      list,
      { name: "delete_callbacks", args: sent, result: invalid },
      { name: "delete_callbacks", args: deleteArgs, result: invalid },
    ]);
    expect(message.tool_calls).toBeUndefined();
    expect(message.content).toContain("invalid_arguments");
  });

  it("lists again after deleting when the list was trimmed, skipping ids already tried", async () => {
    const trimmed = { ...listed, omitted: 30 };
    let lists = 0;
    const run = await drive(cleanupTask, orderTools, (name, args) => {
      if (name === "list_callbacks") {
        lists++;
        if (lists === 1) return trimmed;
        const more = {
          id: "0b7c6a1e-1111-4a2b-8c3d-000000000009",
          url: "https://hooks.old-warehouse.example/late",
        };
        // The failed id is still listed the second time; it must not be tried again. This list is
        // complete (omitted 0), so no third list follows the second delete.
        return { callbacks: [callbacks[1], callbacks[2], more], total: 3, shown: 3, omitted: 0 };
      }
      const requested = args.callback_ids as string[];
      return {
        deleted: requested.filter((id) => id !== ids.oldSub).length,
        failed: requested.includes(ids.oldSub) ? 1 : 0,
        results: requested.map((id) =>
          id === ids.oldSub
            ? { id, status: "failure", error_message: "permission denied" }
            : { id, status: "success" },
        ),
      };
    });
    expect(run.steps.map((step) => step.name)).toEqual([
      "list_callbacks",
      "delete_callbacks",
      "list_callbacks",
      "delete_callbacks",
    ]);
    expect(run.steps[3]!.args).toEqual({ callback_ids: ["0b7c6a1e-1111-4a2b-8c3d-000000000009"] });
    expect(run.text).toContain("Deleted 2 callbacks");
    expect(run.text).toContain("https://hooks.old-warehouse.example/late");
    expect(run.text).toContain("permission denied");
  });

  it("lists per message type, from the tool's schema, when the full list hides callbacks", async () => {
    const typedList = tool("list_callbacks", {
      message_type: { type: "string", enum: ["all", "orderEvent", "shipmentEvent"] },
    });
    const offered = [typedList, ...tools("delete_callbacks")];
    const others = Array.from({ length: 50 }, (_, index) => ({
      id: `0b7c6a1e-2222-4a2b-8c3d-0000000000${String(index).padStart(2, "0")}`,
      url: "https://hooks.new-warehouse.example/x",
    }));
    const run = await drive(cleanupTask, offered, (name, args) => {
      if (name === "delete_callbacks") {
        const requested = args.callback_ids as string[];
        return {
          deleted: requested.length,
          failed: 0,
          results: requested.map((id) => ({ id, status: "success" })),
        };
      }
      if (args.message_type === "all")
        return { callbacks: others, total: 52, shown: 50, omitted: 2 };
      const match = args.message_type === "orderEvent" ? callbacks[0] : callbacks[1];
      return { callbacks: [match, callbacks[2]], total: 2, shown: 2, omitted: 0 };
    });
    expect(run.steps.map((step) => [step.name, step.args])).toEqual([
      ["list_callbacks", { message_type: "all" }],
      ["list_callbacks", { message_type: "orderEvent" }],
      ["delete_callbacks", { callback_ids: [ids.old] }],
      ["list_callbacks", { message_type: "shipmentEvent" }],
      ["delete_callbacks", { callback_ids: [ids.oldSub] }],
    ]);
    expect(run.text).toContain("Deleted 2 callbacks");
  });
});

describe("docs-edit scenario", () => {
  const task =
    'In the docs project "Storefront API", check the site configuration, then on page support.mdx replace help@old-storefront.example with support@storefront.example.';
  const projects = {
    documentations: [
      { documentationId: "doc_internal", name: "Internal Handbook" },
      { documentationId: "doc_store", name: "Storefront API" },
    ],
  };
  const findings = {
    ok: false,
    findings: [
      { severity: "error", code: "openapi_file_missing", message: "m", where: "w", fix: "f" },
      { severity: "warning", code: "playground_cors", message: "m", where: "w", fix: "f" },
      { severity: "warning", code: "page_not_in_navigation", message: "m", where: "w", fix: "f" },
    ],
  };
  const edit = {
    documentation_id: "doc_store",
    path: "support.mdx",
    find: "help@old-storefront.example",
    replace: "support@storefront.example",
  };
  const steps: PastStep[] = [
    { name: "list_documentations", args: {}, result: projects },
    { name: "check_site_config", args: { documentation_id: "doc_store" }, result: findings },
  ];

  it("lists the projects, checks the configuration of the quoted one, then edits the page", async () => {
    expect(onlyCall(await ask(task, [], docsTools))).toEqual({
      name: "list_documentations",
      args: {},
    });
    expect(onlyCall(await ask(task, steps.slice(0, 1), docsTools))).toEqual({
      name: "check_site_config",
      args: { documentation_id: "doc_store" },
    });
    const call = onlyCall(await ask(task, steps, docsTools));
    expect(call.name).toBe("edit_docs_file");
    expect(call.args).toMatchObject(edit);
    expect(typeof call.args.message).toBe("string");
  });

  it("summarises the findings and the change", async () => {
    const message = await ask(
      task,
      [
        ...steps,
        {
          name: "edit_docs_file",
          args: edit,
          result: { path: "support.mdx", changed: true, pushed: true },
        },
      ],
      docsTools,
    );
    expect(message.tool_calls).toBeUndefined();
    expect(message.content).toContain("1 error (openapi_file_missing)");
    expect(message.content).toContain("2 warnings (playground_cors, page_not_in_navigation)");
    expect(message.content).toContain("support.mdx was changed");
  });

  it("reports a refused edit", async () => {
    const refusal = {
      error: "approval_refused",
      message: "refused",
      reason: "docs owner said no",
      code: "denied",
    };
    const message = await ask(
      task,
      [...steps, { name: "edit_docs_file", args: edit, result: refusal }],
      docsTools,
    );
    expect(message.content).toContain("was refused (reason: docs owner said no)");
    expect(message.content).toContain("not changed");
  });

  it("looks the page up in the manifest after a failed edit and retries once with its path", async () => {
    const failed = { error: "tool_failed", message: "404 file not found: support.mdx" };
    const afterFailure = [...steps, { name: "edit_docs_file", args: edit, result: failed }];
    expect(onlyCall(await ask(task, afterFailure, docsTools))).toEqual({
      name: "get_docs_manifest",
      args: { documentation_id: "doc_store" },
    });
    const manifest = { files: [{ path: "index.mdx" }, { path: "help/support.mdx" }], count: 2 };
    const withManifest = [
      ...afterFailure,
      { name: "get_docs_manifest", args: { documentation_id: "doc_store" }, result: manifest },
    ];
    const retry = onlyCall(await ask(task, withManifest, docsTools));
    expect(retry.args).toMatchObject({ ...edit, path: "help/support.mdx" });
    const final = await ask(
      task,
      [...withManifest, { name: "edit_docs_file", args: retry.args, result: failed }],
      docsTools,
    );
    expect(final.tool_calls).toBeUndefined();
    expect(final.content).toContain("tool_failed");
  });

  it("names the available projects when the quoted one does not exist", async () => {
    const message = await ask(
      task.replace("Storefront API", "Billing"),
      steps.slice(0, 1),
      docsTools,
    );
    expect(message.content).toContain('no documentation project named "Billing"');
    expect(message.content).toContain('"Storefront API"');
  });
});

describe("order-report scenario", () => {
  const statuses = ["shipped", "pending", "shipped", "canceled"];
  const orders = Array.from({ length: 230 }, (_, index) => ({
    customer_identifier: `ORD-${index}`,
    status: statuses[index % statuses.length],
  }));
  const page = (offset: number, limit: number) => {
    const items = orders.slice(offset, offset + limit);
    return {
      items,
      count: items.length,
      offset,
      limit,
      next_offset: items.length === limit ? offset + limit : null,
    };
  };

  it("pages with limit 100 until next_offset is null, then counts per status", async () => {
    const run = await drive("Summarise all orders by status.", orderTools, (name, args) => {
      expect(name).toBe("list_orders");
      expect(args.list_type).toBe("summary");
      return page(args.offset as number, args.limit as number);
    });
    expect(run.steps.map((step) => step.args)).toEqual([
      { limit: 100, offset: 0, list_type: "summary" },
      { limit: 100, offset: 100, list_type: "summary" },
      { limit: 100, offset: 200, list_type: "summary" },
    ]);
    expect(run.text).toContain("230 orders");
    expect(run.text).toContain("shipped: 115");
    expect(run.text).toContain("pending: 58");
    expect(run.text).toContain("canceled: 57");
  });

  it("retries a failed page once, then stops with what it counted", async () => {
    const run = await drive("Give me a report of orders by status", orderTools, (_name, args) =>
      args.offset === 0
        ? page(0, 100)
        : { error: "tool_timeout", message: "list_orders took longer than 30 s" },
    );
    expect(run.steps.map((step) => step.args)).toEqual([
      { limit: 100, offset: 0, list_type: "summary" },
      { limit: 100, offset: 100, list_type: "summary" },
      { limit: 100, offset: 100, list_type: "summary" },
    ]);
    expect(run.text).toContain("tool_timeout");
    expect(run.text).toContain("100 orders");
  });
});

describe("custom-tool scenario", () => {
  const task = "Give order ORD-1042 a 15% goodwill discount because it shipped late.";
  const offered = tools("apply_discount");
  const args = { customer_identifier: "ORD-1042", percent: 15, reason: "it shipped late" };

  it("calls apply_discount with the order, percentage and reason from the task", async () => {
    expect(onlyCall(await ask(task, [], offered))).toEqual({ name: "apply_discount", args });
  });

  it("reports applied, refused and rejected discounts without retrying", async () => {
    const applied = await ask(
      task,
      [{ name: "apply_discount", args, result: { applied: true } }],
      offered,
    );
    expect(applied.content).toContain("Applied the 15% discount on ORD-1042");
    const refused = await ask(
      task,
      [
        {
          name: "apply_discount",
          args,
          result: { error: "approval_refused", message: "no", reason: "over budget" },
        },
      ],
      offered,
    );
    expect(refused.content).toContain("refused (reason: over budget)");
    const invalid = await ask(
      "Give order ORD-7 a 75% discount because it broke.",
      [
        {
          name: "apply_discount",
          args,
          result: { error: "invalid_arguments", message: "percent must be at most 50" },
        },
      ],
      offered,
    );
    expect(invalid.tool_calls).toBeUndefined();
    expect(invalid.content).toContain("percent must be at most 50");
  });

  it("answers in text when no discount tool is offered", async () => {
    const message = await ask(task, [], orderTools);
    expect(message.content).toContain('no "apply_discount" tool');
  });
});

describe("auto, echo-tool and every scenario's ending", () => {
  it("picks the scenario from the task", async () => {
    const all = [...orderTools, ...docsTools, ...tools("apply_discount")];
    const first = async (task: string) => onlyCall(await ask(task, [], all)).name;
    expect(await first(cleanupTask)).toBe("list_callbacks");
    expect(await first("Give order ORD-1 a 5% discount because of a delay.")).toBe(
      "apply_discount",
    );
    expect(await first('In the docs project "X", check the site configuration.')).toBe(
      "list_documentations",
    );
    expect(await first("Summarise all orders by status.")).toBe("list_orders");
    const other = await ask("What is the weather?", [], all);
    expect(other.tool_calls).toBeUndefined();
    expect(other.content).toContain("callbacks");
  });

  it("plays a conversation: each turn is picked by the latest user message, and small talk gets a short answer", async () => {
    const all = [...orderTools, ...docsTools, ...tools("apply_discount")];
    const earlier = [
      ...conversation(cleanupTask, [
        listStep,
        { name: "delete_callbacks", args: deleteArgs, result: { deleted: 2 } },
      ]),
      { role: "assistant", content: "Deleted 2 callbacks." },
    ];
    const next = (text: string) =>
      nextMessage(simulator, {
        messages: [...earlier, { role: "user", content: text }],
        tools: all,
      });
    expect(onlyCall(await next("Now summarise all orders by status.")).name).toBe("list_orders");
    expect((await next("Thanks!")).content).toBe("You are welcome.");
    expect((await next("Hello")).content).toBe("Hello again! What should I do next?");
    expect((await next("What did I ask you before?")).content).toContain(cleanupTask);
    const newHost = await next("Remove the callbacks of callbacks.legacy-erp.example too.");
    expect(onlyCall(newHost)).toEqual({ name: "list_callbacks", args: { message_type: "all" } });
    expect((await ask("Hi there", [], all)).content).toMatch(
      /^Hello! I am the Switchyard reasoner simulator/,
    );
  });

  it("echo-tool calls the named tool with {} and then answers done", async () => {
    const echo = await startReasonerSimulator({ scenario: "echo-tool" });
    try {
      const offered = tools("alpha", "beta");
      const first = await nextMessage(echo, {
        messages: conversation("please run beta"),
        tools: offered,
      });
      expect(onlyCall(first)).toEqual({ name: "beta", args: {} });
      const second = await nextMessage(echo, {
        messages: conversation("please run beta", [
          { name: "beta", args: {}, result: { ok: true } },
        ]),
        tools: offered,
      });
      expect(second.content).toBe("done");
    } finally {
      await echo.close();
    }
  });

  it("ends every built-in task with an answer when every tool fails", async () => {
    const tasks = [
      cleanupTask,
      'In the docs project "Storefront API", check the site configuration, then on page support.mdx replace a with b.',
      "Summarise all orders by status.",
      "Give order ORD-1042 a 15% goodwill discount because it shipped late.",
    ];
    const all = [...orderTools, ...docsTools, ...tools("apply_discount")];
    for (const task of tasks) {
      for (const error of ["tool_failed", "tool_timeout", "invalid_arguments", "unknown_tool"]) {
        const run = await drive(task, all, () => ({ error, message: `simulated ${error}` }));
        expect(run.steps.length).toBeLessThanOrEqual(4);
        expect(run.text).toContain(error);
      }
    }
  });

  it("exposes the built-in scenarios by name for composition", () => {
    expect(Object.keys(reasonerScenarios).sort()).toEqual(
      [
        "auto",
        "callback-cleanup",
        "custom-tool",
        "docs-edit",
        "echo-tool",
        "long-stream",
        "order-report",
      ].sort(),
    );
  });
});
