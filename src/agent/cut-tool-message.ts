import type { AnyTool } from "../tools/tool.js";

/** Parameter names that page through a tool's answer, as tools commonly spell them. */
const pagingParameterNames = [
  "cursor",
  "page",
  "page_size",
  "per_page",
  "page_token",
  "limit",
  "offset",
  "starting_after",
  "after",
  "max_results",
];

/**
 * `content` when it has at most `limit` characters; otherwise its beginning
 * and a note saying how much was left out and how to get the rest (the
 * tool's paging parameters, when it has some), `limit` characters in all.
 * A service answer of any size thus never reaches the model whole.
 */
export function cutToolMessage(content: string, limit: number, tool: AnyTool | undefined): string {
  if (content.length <= limit) return content;
  const toolName = tool?.name ?? "the tool";
  const properties = tool?.parameters.properties;
  const paging =
    typeof properties === "object" && properties !== null
      ? pagingParameterNames.filter((name) => Object.hasOwn(properties, name))
      : [];
  const how =
    paging.length > 0
      ? `call ${toolName} again with its paging parameters (${paging.join(", ")}) to read the rest in smaller parts`
      : `call ${toolName} again with narrower arguments to get less at once`;
  const note = (leftOut: number) =>
    `\n[cut: this tool message had ${content.length} characters; the last ${leftOut} were left out, so what is above is incomplete (and, if it was JSON, no longer valid JSON). To see the rest, ${how}.]`;
  // The note's length depends on the number in it: size it for the longest number first.
  let kept = Math.max(0, limit - note(content.length).length);
  // Never split a surrogate pair.
  const last = content.charCodeAt(kept - 1);
  if (last >= 0xd800 && last <= 0xdbff) kept -= 1;
  return `${content.slice(0, kept)}${note(content.length - kept)}`;
}
