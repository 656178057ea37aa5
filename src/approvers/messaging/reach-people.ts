import type { ApproverPerson } from "../../agent/approval/approver-directory.js";
import { NotFoundError } from "../../errors/api-error.js";
import { escapeUntrustedText } from "../../internal/untrusted-text.js";
import type { ApprovalMessagingClient } from "./approval-messaging-client.js";
import { throwIfAborted } from "./approval-refusal.js";
import { describeMessagingError } from "./describe-messaging-error.js";

/** A person who can be asked: their directory id and name, and the link to ask them on. */
export interface ReachedPerson {
  person: string;
  name: string;
  link: string;
}

/** Who can be asked, and who cannot (each in words: their name and why). */
export interface ReachedPeople {
  reached: ReachedPerson[];
  unreachable: string[];
}

/** A person as the approver needs them: the directory's, or as a ticket keeps them. */
export type PersonToReach = Pick<ApproverPerson, "id" | "name"> & {
  links: readonly string[];
};

/** A directory person with their messaging links. */
export function personToReach(person: ApproverPerson): PersonToReach {
  return { id: person.id, name: person.name, links: person.identities.messaging ?? [] };
}

/**
 * Each person's first messaging link in state `active`, read from the
 * service one by one in the directory's order (a person is asked on one
 * link: answers from two of their links would count once anyway). A
 * person with no messaging link, or none active, is `unreachable`, with
 * each link's state in words; one named twice is reached once.
 */
export async function reachPeople(
  client: ApprovalMessagingClient,
  people: readonly PersonToReach[],
  signal: AbortSignal,
): Promise<ReachedPeople> {
  const reached: ReachedPerson[] = [];
  const unreachable: string[] = [];
  const seen = new Set<string>();
  const found = await Promise.all(
    people.map(async (person) => {
      if (seen.has(person.id)) return undefined;
      seen.add(person.id);
      const states: string[] = [];
      for (const link of person.links) {
        const state = await linkState(client, link, signal);
        if (state === "active") return { person, link };
        states.push(`"${escapeUntrustedText(link)}" ${state}`);
      }
      const why =
        states.length === 0 ? "has no messaging link" : `has no active link (${states.join(", ")})`;
      return { person, why };
    }),
  );
  for (const entry of found) {
    if (entry === undefined) continue;
    const { person } = entry;
    if ("link" in entry) reached.push({ person: person.id, name: person.name, link: entry.link });
    else unreachable.push(`${describePerson(person)} ${entry.why}`);
  }
  return { reached, unreachable };
}

/** A person in words for a reason or a log line: `"Alice Ng" (alice)`, escaped. */
export function describePerson(person: Pick<ApproverPerson, "id" | "name">): string {
  const name = `"${escapeUntrustedText(person.name)}"`;
  return person.name === person.id ? name : `${name} (${escapeUntrustedText(person.id)})`;
}

/** `active`, or the link's state in words (`is revoked`, `does not exist`, `could not be read (...)`). */
async function linkState(
  client: ApprovalMessagingClient,
  link: string,
  signal: AbortSignal,
): Promise<string> {
  try {
    const read = await client.getSubscriptionLink(link, { signal });
    return read.state === "active" ? "active" : `is ${escapeUntrustedText(String(read.state))}`;
  } catch (error) {
    throwIfAborted(signal, "the approvers' links", error);
    if (error instanceof NotFoundError) return "does not exist";
    return `could not be read (${describeMessagingError(error)})`;
  }
}
