import type { Logger } from "pino";
import { redactText } from "../../internal/redact.js";
import type { ApprovedRecord, RefusedRecord } from "../approval-gate.js";
import type { WhoMayApprove } from "../approver.js";
import { describeThrown } from "../describe-thrown.js";
import type { RefusalCode } from "../refusal-code.js";
import type {
  ApproverDirectory,
  ApproverIdentity,
  ApproverPerson,
  RecognisedApprover,
} from "./approver-directory.js";
import { type ApproverRequirement, holdsRequiredRoles } from "./approver-requirement.js";
import { isPerson, type RunStarter } from "./run-starter.js";

/** What checking who answered needs: the directory, the rule's requirement, the run's starter. */
export interface ApproverCheck {
  directory: ApproverDirectory;
  requirement: ApproverRequirement;
  starter: RunStarter | undefined;
  logger: Logger;
}

/**
 * Who may answer one question ({@link WhoMayApprove}), for the channel to
 * route and show: the people holding the requirement's roles less the
 * person who started the run (unless self-approval is allowed), and the
 * people escalation asks. People are listed only when the directory can
 * list them by role (`withRoles`); one that throws lists none (the gate
 * judges every answer against the directory in any case).
 */
export async function whoMayApproveFor(check: ApproverCheck): Promise<WhoMayApprove> {
  const { requirement, starter } = check;
  const excluded = requirement.allowSelfApproval ? undefined : starter?.person?.id;
  const allowed = (person: ApproverPerson) =>
    person.id !== excluded && holdsRequiredRoles(requirement, person.roles);
  const roles = [...new Set(requirement.roleSets.flat())];
  const people = await listPeople(check, requirement.roleSets[0] ?? []);
  const escalateTo = requirement.escalateTo;
  const escalationPeople = escalateTo && (await listPeople(check, escalateTo.roles));
  return {
    roles,
    required: requirement.required,
    ...(people ? { people: people.filter(allowed) } : {}),
    ...(excluded !== undefined ? { excluded } : {}),
    ...(escalateTo
      ? {
          escalation: {
            roles: escalateTo.roles,
            afterMs: escalateTo.afterMs,
            ...(escalationPeople
              ? { people: escalationPeople.filter((person) => person.id !== excluded) }
              : {}),
          },
        }
      : {}),
  };
}

/** The people holding any of `roles`, when the directory lists people; none when it fails. */
async function listPeople(
  check: ApproverCheck,
  roles: readonly string[],
): Promise<readonly ApproverPerson[] | undefined> {
  const { directory } = check;
  if (typeof directory.withRoles !== "function") return undefined;
  try {
    const listed: unknown = await directory.withRoles([...roles]);
    return Array.isArray(listed) ? listed.filter(isPerson) : undefined;
  } catch (error) {
    check.logger.warn(
      { error: redactText(describeThrown(error)) },
      "the approver directory failed to list the people who may approve; the question names none",
    );
    return undefined;
  }
}

/**
 * Judges who gave an answer the gate judged already (`judgeDecision`),
 * through the approver directory, failing closed. An approval counts only
 * when every identity that approved is a person the directory recognises,
 * holding the requirement's roles (or the escalation's), not the person
 * who started the run unless self-approval is allowed, and enough distinct
 * people approved: otherwise it is refused `approver_not_allowed`,
 * `self_approval` or `not_enough_approvers`, and nothing runs. A denial
 * counts only from a person allowed; anyone else's is refused
 * `approver_not_allowed`. Either way the record names each person
 * recognised (`people`). Other outcomes are returned as they are.
 */
export async function checkApprovers<Decision extends ApprovedRecord | RefusedRecord>(
  record: Decision,
  check: ApproverCheck,
): Promise<Decision | RefusedRecord> {
  const denial = record.outcome === "refused" && record.code === "denied";
  if (record.outcome === "refused" && !denial) return record;
  if (record.outcome === "approved" && (record.rule !== undefined || record.coveredBy)) {
    return record;
  }
  const identities = answeringIdentities(record);
  const judged: Judged[] = [];
  for (const identity of identities) {
    const found = await recognise(check, identity);
    if ("failed" in found) {
      return refusal(record, judged, "approver_error", found.failed);
    }
    judged.push(judge(check, identity, found.person));
  }
  const refused = judged.find((one) => one.refused !== undefined);
  if (identities.length === 0) {
    return refusal(
      record,
      judged,
      "approver_not_allowed",
      `the answer does not say who gave it, and with an approver directory only a person it names may ${denial ? "deny" : "approve"} this action`,
    );
  }
  if (refused?.refused) {
    const { code, why } = refused.refused;
    return refusal(
      record,
      judged,
      code,
      denial ? `${why}, so their denial does not count (and nothing ran)` : why,
    );
  }
  const people = distinctPeople(judged);
  if (denial) return { ...record, people };
  const { required } = check.requirement;
  if (people.length < required) {
    return refusal(
      record,
      judged,
      "not_enough_approvers",
      `this action needs ${required} different people to approve it, and ${people.length === 1 ? "only 1 person" : `only ${people.length} people`} did (${people.map((person) => person.id).join(", ")}); two answers of one person count once`,
    );
  }
  return { ...record, people };
}

/** One answering identity, judged. */
interface Judged {
  identity: ApproverIdentity;
  person: ApproverPerson | undefined;
  refused?: { code: RefusalCode; why: string };
}

/** The identities that gave the answer: each approver's, else `answeredBy`, else the messaging link. */
function answeringIdentities(record: ApprovedRecord | RefusedRecord): ApproverIdentity[] {
  if (record.outcome === "approved" && record.approverIdentities) {
    return record.approverIdentities;
  }
  if (record.answeredBy) return [record.answeredBy];
  return record.approverLink !== undefined && record.approverLink !== ""
    ? [{ channel: "messaging", id: record.approverLink }]
    : [];
}

async function recognise(
  check: ApproverCheck,
  identity: ApproverIdentity,
): Promise<{ person: ApproverPerson | undefined } | { failed: string }> {
  try {
    const found = await check.directory.recognize({ ...identity });
    return { person: isPerson(found) ? found : undefined };
  } catch (error) {
    const detail = redactText(describeThrown(error));
    check.logger.warn({ error: detail }, "the approver directory failed to recognise an answer");
    return {
      failed: `the approver directory failed to recognise who answered (${detail}), so the answer counts for nothing`,
    };
  }
}

/** Whether one identity's person may answer: known, holding the roles, not the run's starter. */
function judge(
  check: ApproverCheck,
  identity: ApproverIdentity,
  person: ApproverPerson | undefined,
): Judged {
  const { requirement, starter } = check;
  // The channel's evidence is the answerer's text: quoted, and cut to a length a reason can hold.
  const who = person
    ? JSON.stringify(person.id)
    : `${identity.channel} identity ${JSON.stringify(identity.id.slice(0, 100))}`;
  const startedIt =
    (person !== undefined && starter?.person?.id === person.id) ||
    (starter?.identity !== undefined &&
      starter.identity.channel === identity.channel &&
      starter.identity.id === identity.id);
  if (startedIt && !requirement.allowSelfApproval) {
    return {
      identity,
      person,
      refused: {
        code: "self_approval",
        why: `${who} started this run, and the rule asking does not allow the person who started a run to approve its actions`,
      },
    };
  }
  if (!person) {
    return {
      identity,
      person,
      refused: {
        code: "approver_not_allowed",
        why: `the ${who} is nobody in the approver directory`,
      },
    };
  }
  const escalation = requirement.escalateTo?.roles ?? [];
  if (
    !holdsRequiredRoles(requirement, person.roles) &&
    !escalation.some((role) => person.roles.includes(role))
  ) {
    const roles = requirement.roleSets.map((set) => set.join(" or ")).join(", and ");
    return {
      identity,
      person,
      refused: {
        code: "approver_not_allowed",
        why: `${who} does not hold the role this action needs (${roles})`,
      },
    };
  }
  return { identity, person };
}

/** Each person recognised, once, with the evidence of their first answer. */
function distinctPeople(judged: readonly Judged[]): RecognisedApprover[] {
  const people = new Map<string, RecognisedApprover>();
  for (const { identity, person } of judged) {
    if (!person || people.has(person.id)) continue;
    people.set(person.id, {
      id: person.id,
      name: typeof person.name === "string" && person.name !== "" ? person.name : person.id,
      channel: identity.channel,
      evidence: identity.id,
    });
  }
  return [...people.values()];
}

/** The answer refused: nothing runs, and the record names who answered. */
function refusal(
  record: ApprovedRecord | RefusedRecord,
  judged: readonly Judged[],
  code: RefusalCode,
  reason: string,
): RefusedRecord {
  const people = distinctPeople(judged);
  return {
    outcome: "refused",
    fingerprint: record.fingerprint,
    code,
    reason,
    ...(record.approvalId !== undefined ? { approvalId: record.approvalId } : {}),
    ...(record.interactionId !== undefined ? { interactionId: record.interactionId } : {}),
    ...(record.approverLink !== undefined ? { approverLink: record.approverLink } : {}),
    ...(record.questionDigest !== undefined ? { questionDigest: record.questionDigest } : {}),
    ...(record.answeredBy !== undefined ? { answeredBy: record.answeredBy } : {}),
    ...(record.note !== undefined ? { note: record.note } : {}),
    ...(record.policy !== undefined ? { policy: record.policy } : {}),
    ...(people.length > 0 ? { people } : {}),
  };
}
