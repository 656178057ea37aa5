import type { ApprovalRule, DefaultApprovers } from "./approval-rule.js";

/**
 * Who may approve one question, as the rules that ask it say (with an
 * `approverDirectory`): what the gate judges every answer by, and what it
 * tells the channel (`ApprovalAction.whoMayApprove`).
 */
export interface ApproverRequirement {
  /**
   * The roles of each rule asking that names roles: a person must hold one
   * role of every list. Empty: anyone in the directory.
   */
  roleSets: readonly (readonly string[])[];
  /** How many distinct people must each approve. */
  required: number;
  /** Whether the person who started the run may be one of them (every rule asking allows it). */
  allowSelfApproval: boolean;
  /** Escalation by role, from the first rule asking that names one. */
  escalateTo?: { roles: readonly string[]; afterMs: number } | undefined;
}

/** The requirement of one `ask` rule, or of `defaultApprovers` for the questions no rule of the user's asks. */
export function requirementOf(
  declared:
    | Pick<ApprovalRule, "roles" | "required" | "allowSelfApproval" | "escalateTo">
    | DefaultApprovers
    | undefined,
): ApproverRequirement {
  const roles = declared?.roles ?? [];
  const escalateTo = declared && "escalateTo" in declared ? declared.escalateTo : undefined;
  return {
    roleSets: roles.length > 0 ? [Object.freeze([...roles])] : [],
    required: declared?.required ?? 1,
    allowSelfApproval: declared?.allowSelfApproval === true,
    ...(escalateTo
      ? { escalateTo: { roles: Object.freeze([...escalateTo.roles]), afterMs: escalateTo.afterMs } }
      : {}),
  };
}

/**
 * What several rules asking the same question require together, the
 * strictest of each: every rule's roles, the most people any requires,
 * self-approval only when all allow it.
 */
export function combineRequirements(
  requirements: readonly ApproverRequirement[],
): ApproverRequirement {
  const escalateTo = requirements.find((requirement) => requirement.escalateTo)?.escalateTo;
  return {
    roleSets: requirements.flatMap((requirement) => requirement.roleSets),
    required: Math.max(1, ...requirements.map((requirement) => requirement.required)),
    allowSelfApproval:
      requirements.length > 0 && requirements.every((requirement) => requirement.allowSelfApproval),
    ...(escalateTo ? { escalateTo } : {}),
  };
}

/** Whether a person with `roles` is allowed by the requirement's roles. */
export function holdsRequiredRoles(
  requirement: ApproverRequirement,
  roles: readonly string[],
): boolean {
  return requirement.roleSets.every((set) => set.some((role) => roles.includes(role)));
}
