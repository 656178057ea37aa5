import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** Each source file (relative to `root`) and the project files it imports, values and types alike. */
export type ImportGraph = Map<string, string[]>;

/**
 * Reads the relative imports of every `.ts` file under `root/folder` with
 * TypeScript's own pre-processor: `import` and `export ... from` (type-only
 * ones too), dynamic `import()` and `require()`.
 */
export function readImportGraph(root: string, folder = "src"): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of typeScriptFiles(join(root, folder))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    graph.set(
      relative(root, file),
      importedFiles
        .map((imported) => imported.fileName)
        .filter((specifier) => specifier.startsWith("."))
        .map((specifier) =>
          relative(root, resolve(dirname(file), specifier.replace(/\.js$/, ".ts"))),
        ),
    );
  }
  return graph;
}

/** Every import cycle, each as the path that closes it (`a -> b -> a`), found with Tarjan's algorithm. */
export function findCycles(graph: ImportGraph): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    order.set(node, order.size);
    low.set(node, order.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, order.get(next)!));
      }
    }
    if (low.get(node) !== order.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) {
      cycles.push(cyclePath(graph, new Set(component), node));
    }
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return cycles;
}

/** One concrete loop through a strongly connected component, from `start` back to it. */
function cyclePath(graph: ImportGraph, component: Set<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (
          let at: string | undefined = node;
          at !== start && at !== undefined;
          at = previous.get(at)
        ) {
          path.splice(1, 0, at);
        }
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}
