import type { Logger } from "pino";
import { redactText } from "../../internal/redact.js";
import type { ApprovalRecord, ApprovedRecord, RefusedRecord } from "../approval-gate.js";
import type { WhoMayApprove } from "../approver.js";
import { describeThrown } from "../describe-thrown.js";
import type { RefusalCode } from "../refusal-code.js";
import {
  type ApproverDirectory,
  type ApproverIdentity,
  type ApproverPerson,
  answeringIdentity,
  findDirectoryPersonProblem,
  type RecognisedApprover,
} from "./approver-directory.js";
import { type ApproverRequirement, holdsRequiredRoles } from "./approver-requirement.js";
import type { RunStarter } from "./run-starter.js";

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
 * judges every answer against the directory in any case). One that lists
 * anything but whole people is `failed`: nobody may be asked, and the gate
 * refuses the action `approver_error` (a person dropped from the list, or
 * shown without a name or a channel, would change who is asked).
 */
export async function whoMayApproveFor(
  check: ApproverCheck,
): Promise<WhoMayApprove | { failed: string }> {
  const { requirement, starter } = check;
  const excluded = requirement.allowSelfApproval ? undefined : starter?.person?.id;
  const allowed = (person: ApproverPerson) =>
    person.id !== excluded && holdsRequiredRoles(requirement, person.roles);
  const roles = [...new Set(requirement.roleSets.flat())];
  const people = await listPeople(check, requirement.roleSets[0] ?? []);
  if (people && "failed" in people) return people;
  const escalateTo = requirement.escalateTo;
  const escalationPeople = escalateTo && (await listPeople(check, escalateTo.roles));
  if (escalationPeople && "failed" in escalationPeople) return escalationPeople;
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

/**
 * The people holding any of `roles`, when the directory lists people; none
 * when it fails; `failed` when it lists anything but whole people.
 */
async function listPeople(
  check: ApproverCheck,
  roles: readonly string[],
): Promise<readonly ApproverPerson[] | { failed: string } | undefined> {
  const { directory } = check;
  if (typeof directory.withRoles !== "function") return undefined;
  let listed: unknown;
  try {
    listed = await directory.withRoles([...roles]);
  } catch (error) {
    check.logger.warn(
      { error: redactText(describeThrown(error)) },
      "the approver directory failed to list the people who may approve; the question names none",
    );
    return undefined;
  }
  const problem = Array.isArray(listed)
    ? listed
        .map((person, index) => findDirectoryPersonProblem(person, `withRoles(roles)[${index}]`))
        .find((found) => found !== undefined)
    : "the approver directory's withRoles(roles) must give a list of people (an empty list for nobody)";
  if (problem === undefined) return listed as readonly ApproverPerson[];
  return { failed: `${problem}, so nobody was asked and nothing ran` };
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
export async function checkApprovers<Decision extends ApprovalRecord>(
  record: Decision,
  check: ApproverCheck,
): Promise<Decision | RefusedRecord> {
  // An expired or pending question was answered by nobody.
  if (record.outcome !== "approved" && record.outcome !== "refused") return record;
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
  const identity = answeringIdentity(record.answeredBy, record.approverLink);
  return identity ? [identity] : [];
}

async function recognise(
  check: ApproverCheck,
  identity: ApproverIdentity,
): Promise<{ person: ApproverPerson | undefined } | { failed: string }> {
  let found: ApproverPerson | undefined | null;
  try {
    found = await check.directory.recognize({ ...identity });
  } catch (error) {
    const detail = redactText(describeThrown(error));
    check.logger.warn({ error: detail }, "the approver directory failed to recognise an answer");
    return {
      failed: `the approver directory failed to recognise who answered (${detail}), so the answer counts for nothing`,
    };
  }
  if (found === undefined || found === null) return { person: undefined };
  const problem = findDirectoryPersonProblem(found, "recognize(identity)");
  return problem === undefined
    ? { person: found }
    : { failed: `${problem}, so the answer counts for nothing` };
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
      name: person.name,
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
