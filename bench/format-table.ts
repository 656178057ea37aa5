import type { Figure } from "./figure.js";
import type { MachineInfo } from "./machine-info.js";

/** The machine line and a table of figures, for people. */
export function formatTable(machine: MachineInfo, figures: readonly Figure[]): string {
  const header = ["figure", "value", "baseline", "ratio", "target", "met"];
  const rows = figures.map((figure) => [
    figure.name,
    `${figure.value} ${figure.unit}`,
    figure.baseline === undefined ? "" : `${figure.baseline} ${figure.unit}`,
    figure.ratio === undefined ? "" : figure.ratio.toFixed(3),
    figure.target ?? "",
    figure.met === undefined ? "" : figure.met ? "yes" : "NO",
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [
    `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, load average ${machine.loadAverage.join(" ")}`,
    "",
    line(header),
    line(widths.map((width) => "-".repeat(width))),
    ...rows.map(line),
  ].join("\n");
}
