import type { WhoMayApprove } from "../agent/approver.js";

/**
 * Who may answer an interrupt, as its `metadata.switchyard.whoMayApprove`
 * shows it: how many distinct people must approve, the roles the rule
 * names, the people who may answer now (directory id and name, nothing of
 * how any channel recognises them), the person who started the run when
 * they may not answer it, and escalation by role. A UI compares the
 * signed-in person's directory id with `people` to tell them whether
 * their answer can count; the handler judges every answer in any case.
 */
export interface WhoMayApproveMetadata {
  required: number;
  roles: readonly string[];
  /** Absent when the directory cannot list people by role. */
  people?: Array<{ id: string; name: string }>;
  /** The directory id of the run's starter, who may not approve it. */
  excluded?: string;
  escalation?: {
    roles: readonly string[];
    afterMs: number;
    people?: Array<{ id: string; name: string }>;
  };
}

/** {@link WhoMayApproveMetadata} of an action's `whoMayApprove`. */
export function whoMayApproveMetadata(who: WhoMayApprove): WhoMayApproveMetadata {
  const named = (people: WhoMayApprove["people"]) =>
    people?.map((person) => ({ id: person.id, name: person.name }));
  const people = named(who.people);
  const escalation = who.escalation;
  const escalated = named(escalation?.people);
  return {
    required: who.required,
    roles: [...who.roles],
    ...(people !== undefined ? { people } : {}),
    ...(who.excluded !== undefined ? { excluded: who.excluded } : {}),
    ...(escalation !== undefined
      ? {
          escalation: {
            roles: [...escalation.roles],
            afterMs: escalation.afterMs,
            ...(escalated !== undefined ? { people: escalated } : {}),
          },
        }
      : {}),
  };
}
