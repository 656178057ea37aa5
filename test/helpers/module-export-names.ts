import ts from "typescript";

/**
 * The names each module exports, values and types alike, as TypeScript
 * resolves them (re-exports and `export *` followed). One program for all
 * the modules, so the source is parsed once.
 */
export function moduleExportNames(files: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram([...files], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  });
  const checker = program.getTypeChecker();
  const names = new Map<string, string[]>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`${file} is not a module TypeScript can read`);
    names.set(
      file,
      checker
        .getExportsOfModule(symbol)
        .map((exported) => exported.name)
        .sort(),
    );
  }
  return names;
}
