import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "../../internal/canonical-json.js";
import { RunStateError } from "./durable-errors.js";
import { parseRunState } from "./parse-run-state.js";
import type { RunState } from "./run-state.js";

const sealPrefix = "hmac-sha256:";

/**
 * The state with its `seal`: an HMAC-SHA256, made with `stateKey`, over the
 * canonical JSON of everything else in it (revision, conversation, pending
 * calls, used approvals, ...). A store keeps the seal as one more field,
 * without knowing the key.
 */
export function sealRunState(state: RunState, stateKey: string): RunState {
  const { seal: _previous, ...unsealed } = state;
  return { ...unsealed, seal: computeSeal(unsealed, stateKey) };
}

/**
 * Throws a `RunStateError` naming `source` unless the state carries a seal
 * made with `stateKey` over exactly its content: a state edited outside
 * Switchyard (arguments changed and their fingerprint recomputed, a status
 * put back), sealed with another key, or never sealed is refused.
 */
export function checkRunStateSeal(state: RunState, stateKey: string, source: string): void {
  const { seal, ...unsealed } = state;
  if (typeof seal !== "string") {
    throw new RunStateError(
      source,
      "it carries no seal, and this agent seals its states (stateKey): it was written without the key, or the seal was removed; it is not resumed",
    );
  }
  const expected = Buffer.from(computeSeal(unsealed, stateKey));
  const given = Buffer.from(seal);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new RunStateError(
      source,
      "its seal does not match its content: it was changed outside Switchyard, or sealed with another stateKey; it is not resumed",
    );
  }
}

function computeSeal(unsealed: Omit<RunState, "seal">, stateKey: string): string {
  // Sealed as a store gives it back: read through the same parser, so fields
  // a store drops or fills in (an absent revision reads as 0) seal alike.
  const normalized = parseRunState(unsealed, "the state to seal");
  const { seal: _none, ...content } = normalized;
  const mac = createHmac("sha256", stateKey).update(canonicalJson(content)).digest("hex");
  return `${sealPrefix}${mac}`;
}
