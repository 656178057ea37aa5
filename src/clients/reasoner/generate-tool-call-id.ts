/**
 * A fresh tool call id (`call_` + 24 random hex digits), for providers that
 * send a call without a usable id: the answering tool message needs one.
 */
export function generateToolCallId(): string {
  return `call_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}
