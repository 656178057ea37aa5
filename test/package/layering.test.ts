import { describe, expect, it } from "vitest";
import { findCycles, type ImportGraph, readImportGraph } from "../helpers/import-graph.js";

// The folders are the architecture: agent -> tools -> clients -> internal,
// with errors and internal at the bottom (errors redact through internal,
// internal throws errors: the cycle check keeps files from looping), and no
// cycles. What each folder of src/ may
// import besides itself; the entry points, the command and the approvers
// over the services sit on top.
const mayImport: Record<string, readonly string[]> = {
  errors: ["internal"],
  internal: ["errors"],
  clients: ["internal", "errors"],
  tools: ["clients", "internal", "errors"],
  agent: ["tools", "internal", "errors"],
  approvers: ["agent", "tools", "clients", "internal", "errors"],
  // The audit-log suite holds a log of yours to the trail the stores write:
  // it checks the trail with the same statements, signatures and verifier.
  testing: ["agent", "tools", "stores", "internal", "errors"],
  // The run stores are adapters of the agent's RunStore interface, beside
  // the clients: they import the agent's contract, the agent never imports them.
  stores: ["agent", "internal", "errors"],
  // The messaging simulator checks a person's edit with the tools' JSON Schema validator.
  simulators: ["tools", "clients", "internal", "errors"],
  entries: ["approvers", "stores", "agent", "tools", "clients", "internal", "errors"],
  "index.ts": ["approvers", "stores", "agent", "tools", "clients", "internal", "errors"],
  mcp: ["agent", "tools", "internal", "errors"],
  // AG-UI serves an agent: the run store it defaults to, the question
  // text the messaging approver also writes.
  "ag-ui": ["approvers", "stores", "agent", "tools", "internal", "errors"],

  // An adapter of the agent's Model over the AI SDK's specification: it
  // speaks the agent's protocol and throws the reasoning client's errors.
  // Its approval gate reads the tools' contract (targets, descriptions).
  "ai-sdk": ["agent", "tools", "clients", "internal", "errors"],
  // Switchyard's approval gate inside OpenAI Agents SDK apps, beside the AI SDK's.
  "openai-agents": ["agent", "tools", "internal", "errors"],

  // Durable runs on DBOS: the agent, run by DBOS workflows, its runs in the PostgreSQL store.
  dbos: ["agent", "stores", "internal", "errors"],
  cli: [
    "index.ts",
    "mcp",
    "entries",
    "approvers",
    "stores",
    "agent",
    "tools",
    "clients",
    "internal",
    "errors",
    "simulators",
    "testing",
  ],
};

const root = new URL("../../", import.meta.url).pathname;
const folderOf = (file: string) => file.split("/")[1] ?? file;

function layeringProblems(graph: ImportGraph): string[] {
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const allowed = mayImport[from];
    if (!allowed) {
      problems.push(`${file}: src/${from} has no place in the layering; add it to mayImport`);
      continue;
    }
    for (const target of targets) {
      const to = folderOf(target);
      if (to !== from && !allowed.includes(to)) {
        problems.push(
          `${file} imports ${target}: src/${from} may import only ${allowed.join(", ") || "itself"}`,
        );
      }
    }
  }
  return problems;
}

describe("the import graph of src/", () => {
  const graph = readImportGraph(root);

  it("has no cycles", () => {
    expect(findCycles(graph).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  it("points one way: agent -> tools -> clients -> internal, and the agent never imports a client", () => {
    expect(layeringProblems(graph)).toEqual([]);
  });

  it("is read whole: every folder, with the imports the layering is about", () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get("src/agent/run-loop.ts")).toContain("src/agent/call-model.ts");
    expect(new Set([...graph.keys()].map(folderOf))).toEqual(new Set(Object.keys(mayImport)));
  });
});

describe("the checks themselves", () => {
  it("name a cycle, with the path that closes it", () => {
    const graph: ImportGraph = new Map([
      ["src/clients/a.ts", ["src/clients/b.ts"]],
      ["src/clients/b.ts", ["src/clients/c.ts", "src/internal/d.ts"]],
      ["src/clients/c.ts", ["src/clients/a.ts"]],
      ["src/internal/d.ts", []],
    ]);
    expect(findCycles(graph)).toEqual([
      ["src/clients/a.ts", "src/clients/b.ts", "src/clients/c.ts", "src/clients/a.ts"],
    ]);
  });

  it("name an import against the layering", () => {
    const graph: ImportGraph = new Map([
      ["src/agent/loop.ts", ["src/clients/reasoner/client.ts", "src/tools/tool.ts"]],
      ["src/clients/reasoner/client.ts", []],
      ["src/tools/tool.ts", []],
    ]);
    expect(layeringProblems(graph)).toEqual([
      "src/agent/loop.ts imports src/clients/reasoner/client.ts: src/agent may import only tools, internal, errors",
    ]);
  });
});
