import { readBatchItems } from "../../clients/messaging/batch-answer.js";

/**
 * Who asks a question, from the metadata its sender put on it (`run_id`,
 * `tool`, `tool_call_id`, `task`; the tools of a batch question's items):
 * each value the sender's, untrusted, to be escaped where shown. `asked`
 * is false for a question that names none of them (not an agent's).
 */
export interface QuestionAsker {
  asked: boolean;
  /**
   * The run's id; absent when the question names no run (every run of an
   * agent has one: only a question sent to the service by other means lacks it).
   */
  runId?: string;
  tool?: string;
  toolCallId?: string;
  task?: string;
}

/** The asker a question's metadata names (see {@link QuestionAsker}). */
export function readQuestionAsker(metadata: Readonly<Record<string, unknown>>): QuestionAsker {
  const text = (key: string) => {
    const value = metadata[key];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const items = readBatchItems(metadata);
  const itemTools = [...new Set(items?.map((item) => item.tool).filter((tool) => tool !== ""))];
  const runId = text("run_id");
  const tool = text("tool") ?? (itemTools.length > 0 ? itemTools.join(", ") : undefined);
  const toolCallId = text("tool_call_id");
  const task = text("task");
  return {
    asked: runId !== undefined || tool !== undefined || task !== undefined,
    ...(runId !== undefined ? { runId } : {}),
    ...(tool !== undefined ? { tool } : {}),
    ...(toolCallId !== undefined ? { toolCallId } : {}),
    ...(task !== undefined ? { task } : {}),
  };
}
