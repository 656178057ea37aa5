import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { canonicalJson } from "../../internal/canonical-json.js";
import { redactText } from "../../internal/redact.js";
import type { ToolTarget } from "../../tools/tool.js";
import { describeThrown } from "../describe-thrown.js";

/**
 * What an `ask` rule of the approval policy lets its question offer:
 * "approve this and the next actions like it in this run". Like it means
 * the same tool and target, the same value of `sameValue` (when given), at
 * most `maxCalls` more calls, until `forMs` after the question was asked.
 *
 * @example
 * standing: {
 *   maxCalls: 5,
 *   forMs: 15 * 60_000,
 *   sameValue: {
 *     label: "callback host",
 *     // One host for every callback of the call, or no standing approval at all.
 *     of: (args) => {
 *       const urls = (args as { callbacks: { url: string }[] }).callbacks.map((c) => c.url);
 *       const hosts = new Set(urls.map((url) => new URL(url).host));
 *       return hosts.size === 1 ? [...hosts][0] : undefined;
 *     },
 *   },
 * }
 */
export interface StandingApprovalOffer {
  /** How many more calls, after the one asked about, the approval may cover (1 to 1000). */
  maxCalls: number;
  /** How long the approval lasts, counted from when the question is asked, in milliseconds. */
  forMs: number;
  /**
   * The constraint later calls must meet: `of` gives a value of the
   * arguments (and target), and only calls with the same value are covered.
   * `label` names it in the question (the tool's words, e.g. `callback
   * host`). A call for which `of` gives `undefined` or throws is neither
   * offered a standing approval nor covered by one.
   */
  sameValue?:
    | {
        label: string;
        of: (args: unknown, target: ToolTarget | undefined) => string | undefined;
      }
    | undefined;
}

/**
 * The scope of a standing approval, as the question states it before anyone
 * chooses: plain data, fingerprinted, and kept (sealed) in the run's state.
 */
export interface StandingScope {
  /** The `approvalPolicy` rule that offered it; a later call is covered only while that rule asks about it. */
  rule: string;
  toolName: string;
  /** Where the calls act; a covered call has exactly this target. */
  target?: ToolTarget;
  /** The value every covered call has (`StandingApprovalOffer.sameValue`). */
  sameValue?: { label: string; value: string };
  /** How many more calls it covers, after the one asked about. */
  maxCalls: number;
  /** ISO 8601: it covers nothing from this time on. */
  until: string;
  /** `sha256:` digest of everything above: what a person's standing approval binds to. */
  fingerprint: string;
}

/** A standing approval a person gave in a run, as the run keeps it (`RunState.standingApprovals`). */
export interface StandingApproval {
  /** The approval whose answer granted it. */
  approvalId: string;
  scope: StandingScope;
  /** Calls it covered so far. Each use is an approval of its own, with its own id, spent once. */
  used: number;
  /** Why it covers nothing more: a person denied a call of its tool later in the run. */
  revoked?: string;
  /** ISO 8601. */
  grantedAt: string;
}

/** Which standing approval let a call run without asking, and which of its uses it was. */
export interface StandingCoverage {
  /** The approval whose standing scope covered the call (the call's own approval has its own id). */
  approvalId: string;
  /** From 1: the first call after the approved one is use 1. */
  use: number;
  maxCalls: number;
  /** The scope's fingerprint. */
  scope: string;
}

const maximumStandingCalls = 1000;

/** Checks the `standing` of a policy rule, adding one line per problem. */
export function checkStandingOffer(offer: unknown, at: string, problems: string[]): void {
  if (typeof offer !== "object" || offer === null) {
    problems.push(`${at} must be an object { maxCalls, forMs, sameValue? }.`);
    return;
  }
  const { maxCalls, forMs, sameValue } = offer as StandingApprovalOffer;
  if (!Number.isSafeInteger(maxCalls) || maxCalls < 1 || maxCalls > maximumStandingCalls) {
    problems.push(
      `${at}.maxCalls must be a whole number from 1 to ${maximumStandingCalls}: how many more calls the approval covers.`,
    );
  }
  if (!Number.isSafeInteger(forMs) || forMs < 1) {
    problems.push(`${at}.forMs must be a positive whole number of milliseconds.`);
  }
  if (sameValue === undefined) return;
  if (
    typeof sameValue !== "object" ||
    sameValue === null ||
    typeof sameValue.label !== "string" ||
    sameValue.label.trim() === "" ||
    typeof sameValue.of !== "function"
  ) {
    problems.push(
      `${at}.sameValue must be { label: "callback host", of: (args, target) => string | undefined }.`,
    );
  }
}

/**
 * The value of the offer's `sameValue` for a call: `null` when the offer has
 * no constraint, `undefined` when the call cannot be scoped (it gives no
 * value, or throws: fail closed).
 */
export function sameValueOf(
  offer: StandingApprovalOffer,
  args: unknown,
  target: ToolTarget | undefined,
  logger: () => Logger,
): { label: string; value: string } | null | undefined {
  if (offer.sameValue === undefined) return null;
  try {
    const value = offer.sameValue.of(args, target);
    return typeof value === "string" && value !== ""
      ? { label: offer.sameValue.label, value }
      : undefined;
  } catch (error) {
    logger().warn(
      { error: redactText(describeThrown(error)) },
      "a standing approval's sameValue threw; no standing approval is offered or used for this call",
    );
    return undefined;
  }
}

/** The scope a question offers for a call, `until` counted from `now`. */
export function standingScopeFor(
  rule: string,
  offer: StandingApprovalOffer,
  call: {
    toolName: string;
    target: ToolTarget | undefined;
    sameValue: { label: string; value: string } | null;
  },
  now: Date,
): StandingScope {
  const content: Omit<StandingScope, "fingerprint"> = {
    rule,
    toolName: call.toolName,
    ...(call.target ? { target: { ...call.target } } : {}),
    ...(call.sameValue ? { sameValue: { ...call.sameValue } } : {}),
    maxCalls: offer.maxCalls,
    until: new Date(now.getTime() + offer.forMs).toISOString(),
  };
  return { ...content, fingerprint: standingScopeFingerprint(content) };
}

/** `sha256:` digest of a scope's content (everything but its fingerprint). */
export function standingScopeFingerprint(scope: Omit<StandingScope, "fingerprint">): string {
  const { rule, toolName, target, sameValue, maxCalls, until } = scope;
  const content = canonicalJson({ rule, toolName, target, sameValue, maxCalls, until });
  return `sha256:${createHash("sha256").update("standing\n").update(content).digest("hex")}`;
}

/**
 * Whether a kept standing approval covers a call: not revoked, uses left,
 * before its time, the same rule asking about the same tool on exactly the
 * same target with the same constrained value, and a scope whose
 * fingerprint still matches its content.
 */
export function standingCovers(
  approval: StandingApproval,
  call: {
    rule: string;
    toolName: string;
    target: ToolTarget | undefined;
    sameValue: { label: string; value: string } | null;
  },
  now: Date,
): boolean {
  const { scope } = approval;
  if (approval.revoked !== undefined || approval.used >= scope.maxCalls) return false;
  if (!(now.getTime() < Date.parse(scope.until))) return false;
  if (scope.rule !== call.rule || scope.toolName !== call.toolName) return false;
  if (canonicalJson(scope.target ?? null) !== canonicalJson(call.target ?? null)) return false;
  if (canonicalJson(scope.sameValue ?? null) !== canonicalJson(call.sameValue ?? null)) {
    return false;
  }
  return scope.fingerprint === standingScopeFingerprint(scope);
}

/** Checks a kept scope's shape and fingerprint, naming `at` in each problem. */
export function checkStandingScope(value: unknown, at: string, problems: string[]): boolean {
  const scope = value as StandingScope;
  if (
    typeof value !== "object" ||
    value === null ||
    typeof scope.rule !== "string" ||
    typeof scope.toolName !== "string" ||
    !Number.isSafeInteger(scope.maxCalls) ||
    typeof scope.until !== "string" ||
    Number.isNaN(Date.parse(scope.until)) ||
    typeof scope.fingerprint !== "string"
  ) {
    problems.push(
      `${at} must be a standing scope { rule, toolName, maxCalls, until, fingerprint }`,
    );
    return false;
  }
  if (scope.fingerprint !== standingScopeFingerprint(scope)) {
    problems.push(
      `${at}.fingerprint does not match the scope: it was changed after it was offered`,
    );
    return false;
  }
  return true;
}
