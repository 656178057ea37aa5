import { readConversation, type ToolStep } from "./read-conversation.js";
import {
  callTool,
  countErrors,
  describeToolError,
  lastStepOf,
  missingTool,
  refusalReason,
  retryReadOrGiveUp,
  say,
} from "./scenario-steps.js";
import type { ReceivedChatRequest, ScriptedAnswer } from "./scripted-answer.js";

interface DocsTask {
  projectName: string | undefined;
  checkConfig: boolean;
  mentionsReplace: boolean;
  edit: { path: string; find: string; replace: string } | undefined;
}

/**
 * Plays a model editing a documentation page: list_documentations, find the
 * project by the quoted name, check_site_config when the task asks for it,
 * edit_docs_file with the find/replace the task names, then a summary of the
 * findings and of the edit. A failed edit is retried once with the page path
 * found in the manifest.
 */
export function docsEditScenario(request: ReceivedChatRequest): ScriptedAnswer {
  const { task, steps, offeredTools } = readConversation(request);
  const plan = readDocsTask(task);
  const call = (name: string, args: unknown, purpose: string): ScriptedAnswer =>
    offeredTools.includes(name) ? callTool(name, args) : missingTool(name, purpose);

  const listing = lastStepOf(steps, "list_documentations");
  if (!listing) return call("list_documentations", {}, "find the documentation project");
  if (listing.error) {
    return retryReadOrGiveUp(steps, listing, "list the documentation projects", {});
  }
  const project = findProject(listing.result, plan.projectName);
  if (typeof project === "string") return say(project);
  const documentationId = project.documentationId;

  const check = lastStepOf(steps, "check_site_config");
  if (plan.checkConfig) {
    if (!check) {
      return call(
        "check_site_config",
        { documentation_id: documentationId },
        "check the site configuration",
      );
    }
    const transient = check.error === "tool_failed" || check.error === "tool_timeout";
    if (transient && countErrors(steps, "check_site_config") < 2) {
      return callTool("check_site_config", { documentation_id: documentationId });
    }
  }
  const findings = check ? describeFindings(check) : "";
  const lead = findings ? `${findings} ` : "";

  if (!plan.edit) {
    if (plan.mentionsReplace) {
      return say(
        `${lead}I could not tell what to change. Write it as: on page <path> replace <old text> with <new text>.`,
      );
    }
    return say(
      findings ||
        `Project "${project.name}" (${documentationId}) found; the task asks for nothing else.`,
    );
  }
  const edit = lastStepOf(steps, "edit_docs_file");
  const editArguments = (path: string) => ({
    documentation_id: documentationId,
    path,
    find: plan.edit!.find,
    replace: plan.edit!.replace,
    message: `Replace ${plan.edit!.find} with ${plan.edit!.replace} on ${path}`,
  });
  if (!edit) {
    if (!offeredTools.includes("edit_docs_file")) {
      return say(`${lead}${missingTool("edit_docs_file", `edit ${plan.edit.path}`).text}`);
    }
    return callTool("edit_docs_file", editArguments(plan.edit.path));
  }
  const editedPath = String(
    (edit.arguments as { path?: unknown } | undefined)?.path ?? plan.edit.path,
  );
  if (edit.error === "approval_refused") {
    return say(
      `${lead}The edit of ${editedPath} was refused (reason: ${refusalReason(edit)}); the page was not changed.`,
    );
  }
  if (edit.error) {
    const edits = steps.filter((step) => step.name === "edit_docs_file").length;
    const manifest = lastStepOf(steps, "get_docs_manifest");
    if (!manifest && edits === 1 && offeredTools.includes("get_docs_manifest")) {
      return callTool(
        "get_docs_manifest",
        { documentation_id: documentationId },
        "The edit failed; checking the page path.",
      );
    }
    const better =
      manifest && !manifest.error ? manifestPath(manifest.result, plan.edit.path) : undefined;
    if (better && better !== editedPath && edits < 2)
      return callTool("edit_docs_file", editArguments(better));
    return say(`${lead}${describeToolError(edit)} The page was not changed.`);
  }
  return say(`${lead}${describeEdit(edit, editedPath, plan.edit)}`);
}

function readDocsTask(task: string): DocsTask {
  // A name in quotes holds no opening quote: a run of them is then read once, not once per quote.
  const projectName = /["“]([^"“”]+)["”]/.exec(task)?.[1]?.trim();
  const path = /(?:^|[\s"'`(])([\w./-]+\.mdx?)\b/.exec(task)?.[1];
  const change = readReplacement(task);
  const find = change ? unquote(change.find) : undefined;
  const replace = change ? unquote(change.replace) : undefined;
  return {
    projectName,
    checkConfig: /site config|configuration|layout\.json/i.test(task),
    mentionsReplace: /\breplace\b/i.test(task),
    edit: path && find && replace !== undefined ? { path, find, replace } : undefined,
  };
}

/**
 * "replace X with Y" in a task, read in linear time: X runs from the first
 * "replace" to the first "with" between spaces after it, Y to the end of
 * the task or to a `.`, `;` or `,` before a space, whichever comes first.
 */
function readReplacement(task: string): { find: string; replace: string } | undefined {
  const word = /\breplace\s+/i.exec(task);
  if (!word) return undefined;
  const findStart = word.index + word[0].length;
  // Starting only where a run of spaces starts reads each run once.
  const separator = /(?<!\s)\s+with\s+/gi;
  separator.lastIndex = findStart + 1;
  const found = separator.exec(task);
  if (!found) return undefined;
  const rest = task.slice(found.index + found[0].length);
  const end = rest.trimEnd().length;
  for (let index = 1; index <= end; index += 1) {
    const character = rest.charAt(index);
    const punctuation = character !== "" && ".;,".includes(character);
    const atEnd = index === end || (index === end - 1 && punctuation);
    if (atEnd || (punctuation && /\s/.test(rest.charAt(index + 1)))) {
      return { find: task.slice(findStart, found.index), replace: rest.slice(0, index) };
    }
  }
  return undefined;
}

function unquote(text: string): string {
  return text.trim().replace(/^["“'`](.*)["”'`]$/s, "$1");
}

function findProject(
  result: unknown,
  name: string | undefined,
): { documentationId: string; name: string } | string {
  const list = Array.isArray(result)
    ? result
    : (result as { documentations?: unknown }).documentations;
  const projects = (Array.isArray(list) ? list : [])
    .filter((item): item is Record<string, unknown> => typeof item === "object" && item !== null)
    .map((item) => ({
      documentationId: String(item.documentationId ?? item.id),
      name: String(item.name ?? ""),
    }));
  const names = projects.map((project) => `"${project.name}"`).join(", ") || "none";
  if (name === undefined) {
    if (projects.length === 1) return projects[0]!;
    return `Which documentation project do you mean? Put its name in double quotes. Available: ${names}.`;
  }
  const wanted = name.toLowerCase();
  const found =
    projects.find((project) => project.name.toLowerCase() === wanted) ??
    projects.find((project) => project.name.toLowerCase().includes(wanted));
  return (
    found ??
    `There is no documentation project named "${name}"; nothing was changed. Available: ${names}.`
  );
}

function describeFindings(check: ToolStep): string {
  if (check.error)
    return `The site configuration could not be checked: ${describeToolError(check)}`;
  const raw = (check.result as { findings?: unknown }).findings;
  const findings = (Array.isArray(raw) ? raw : []) as Array<{ severity?: unknown; code?: unknown }>;
  if (findings.length === 0) return "The site configuration check found no problems.";
  const part = (severity: string) => {
    const found = findings.filter((finding) => finding.severity === severity);
    const codes = found.map((finding) => String(finding.code));
    const noun = `${severity}${found.length === 1 ? "" : "s"}`;
    return codes.length > 0 ? `${found.length} ${noun} (${codes.join(", ")})` : `0 ${noun}`;
  };
  return `The site configuration check found ${part("error")} and ${part("warning")}.`;
}

function describeEdit(
  edit: ToolStep,
  path: string,
  change: { find: string; replace: string },
): string {
  const result = edit.result as { changed?: unknown; pushed?: unknown; status?: unknown };
  if (result.changed !== true) {
    return `${path} was not changed: "${change.find}" was not found on the page.`;
  }
  const status = typeof result.status === "string" ? ` (status: ${result.status})` : "";
  return result.pushed === false
    ? `${path} was changed ("${change.find}" is now "${change.replace}") but the change was not pushed${status}.`
    : `${path} was changed: "${change.find}" is now "${change.replace}", and the change was pushed${status}.`;
}

function manifestPath(result: unknown, wanted: string): string | undefined {
  const files = (result as { files?: unknown }).files;
  if (!Array.isArray(files)) return undefined;
  const paths = files
    .map((file) => (file as { path?: unknown }).path)
    .filter((path): path is string => typeof path === "string");
  const base = wanted.replace(/^\/+/, "").replace(/\.mdx?$/, "");
  return paths.find((path) => {
    const candidate = path.replace(/^\/+/, "").replace(/\.mdx?$/, "");
    return candidate === base || candidate.endsWith(`/${base}`);
  });
}
