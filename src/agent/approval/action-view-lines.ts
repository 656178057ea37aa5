import type { ActionView, ActionViewDetail, ActionViewTarget } from "./action-view.js";

/**
 * An {@link ActionView} laid out as lines of text, the same on every
 * channel that shows text: the summary (or `run the tool below.`), where
 * the call acts, one line per detail value (`- label: "value"`) and a
 * block behind `  | ` per text, the whole arguments as JSON behind the
 * same gutter, whether it can be undone and which tool it runs. Nothing is
 * escaped or hidden here: the view already is.
 *
 * @example
 * summary: "Delete 1 callback: deliveries to this URL stop at once."
 * where:   ['Where: service "orders" at "sandbox.example.com", account "acme", environment "sandbox"']
 * details: ['- order_shipped events to: "https://hooks.example.com/a"']
 * arguments: ["Arguments (JSON):", "  | {", '  |   "ids": [', ...]
 * foot:    ["This cannot be undone.", "Tool: delete_callbacks"]
 */
export interface ActionViewLines {
  summary: string;
  where: string[];
  details: string[];
  /** `Arguments (JSON):` and the arguments behind the gutter. */
  arguments: string[];
  foot: string[];
}

/** Lays out `view` as {@link ActionViewLines}. */
export function actionViewLines(view: ActionView): ActionViewLines {
  return {
    summary: view.summary || "run the tool below.",
    where: view.target ? [`Where: ${targetWords(view.target)}`] : [],
    details: view.details.flatMap(detailLines),
    arguments: ["Arguments (JSON):", ...view.arguments.split("\n").map((line) => `  | ${line}`)],
    foot: [...(view.irreversible ? ["This cannot be undone."] : []), `Tool: ${view.tool}`],
  };
}

/**
 * Where a call acts, in words, each value quoted: `service "orders" at
 * "sandbox.example.com", account "acme", environment "production"
 * (PRODUCTION)`; production is also written in capitals, so it stands out.
 */
export function targetWords(target: ActionViewTarget): string {
  const parts = [`service "${target.service}"`];
  if (target.address !== undefined) parts[0] += ` at "${target.address}"`;
  if (target.account !== undefined) parts.push(`account "${target.account}"`);
  if (target.environment !== undefined) {
    const loud = target.environment === "production" ? " (PRODUCTION)" : "";
    parts.push(`environment "${target.environment}"${loud}`);
  }
  return parts.join(", ");
}

function detailLines(detail: ActionViewDetail): string[] {
  const agent = detail.writtenByAgent === true ? " (the agent's words)" : "";
  const label = `- ${detail.label}${agent}`;
  if (detail.value !== undefined) {
    return [detail.label === "" ? `- "${detail.value}"` : `${label}: "${detail.value}"`];
  }
  if (detail.lines !== undefined) {
    if (detail.lines.length === 1 && detail.lines[0] === "") return [`${label}: (empty)`];
    return [`${label}:`, ...detail.lines.map((line) => `  | ${line}`)];
  }
  return [label];
}
