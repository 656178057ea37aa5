import type { ModelMessage } from "ai";

/** A person's answer in the chat to one approval request, as the client sent it back. */
export interface ChatApprovalResponse {
  /** The AI SDK's id of the request it answers. */
  approvalId: string;
  toolName: string;
  toolCallId: string;
  /** The call's input, as the client-sent history holds it. */
  input: unknown;
  approved: boolean;
  reason?: string | undefined;
}

/**
 * The approval responses of the last message, when it is a tool message
 * (where the AI SDK reads them), by tool call id, each with the call it
 * answers: its request in an assistant message names the call, whose
 * tool-call part gives the tool and its input. A response whose request or
 * call the history lacks is left out (the AI SDK refuses it itself).
 */
export function chatApprovalResponses(
  messages: readonly ModelMessage[],
): Map<string, ChatApprovalResponse> {
  const found = new Map<string, ChatApprovalResponse>();
  const last = messages.at(-1);
  if (last?.role !== "tool" || !Array.isArray(last.content)) return found;
  const requests = new Map<string, string>();
  const calls = new Map<string, { toolName: string; input: unknown }>();
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const part of message.content) {
      if (part.type === "tool-approval-request") requests.set(part.approvalId, part.toolCallId);
      if (part.type === "tool-call") {
        calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
      }
    }
  }
  for (const part of last.content) {
    if (part.type !== "tool-approval-response") continue;
    const toolCallId = requests.get(part.approvalId);
    const call = toolCallId !== undefined ? calls.get(toolCallId) : undefined;
    if (toolCallId === undefined || !call || found.has(toolCallId)) continue;
    found.set(toolCallId, {
      approvalId: part.approvalId,
      toolCallId,
      ...call,
      approved: part.approved === true,
      ...(typeof part.reason === "string" ? { reason: part.reason } : {}),
    });
  }
  return found;
}

/**
 * `messages` with each approval response of the last message that `judge`
 * refuses (it returns the reason) turned into a denial with that reason,
 * so the AI SDK runs nothing for it and tells the model why. The messages
 * given are not changed.
 */
export async function honourChatApprovals(
  messages: ModelMessage[],
  judge: (
    toolName: string,
    toolCallId: string,
    input: unknown,
    response: ChatApprovalResponse,
  ) => Promise<string | undefined>,
): Promise<ModelMessage[]> {
  const responses = chatApprovalResponses(messages);
  const denials = new Map<string, string>();
  for (const response of responses.values()) {
    const refused = await judge(response.toolName, response.toolCallId, response.input, response);
    if (refused !== undefined) denials.set(response.approvalId, refused);
  }
  const last = messages.at(-1);
  if (denials.size === 0 || last?.role !== "tool") return messages;
  const content = last.content.map((part) => {
    const reason =
      part.type === "tool-approval-response" ? denials.get(part.approvalId) : undefined;
    return reason === undefined ? part : { ...part, approved: false, reason };
  });
  return [...messages.slice(0, -1), { ...last, content }];
}
