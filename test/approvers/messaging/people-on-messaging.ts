import {
  type ApproverDirectory,
  type ApproverPerson,
  approverDirectory,
} from "../../../src/agent/approval/approver-directory.js";
import type { ApprovalAction, WhoMayApprove } from "../../../src/agent/approver.js";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import type { MessagingSimulator } from "../../../src/simulators/index.js";
import type { InteractionRecord } from "../../../src/simulators/messaging/messaging-state.js";

/** A person of the test directory: their roles, and how many messaging links they get. */
export interface PersonPlan {
  id: string;
  name: string;
  roles: string[];
  /** Links made for them in the simulator, each activated unless its state is given. */
  links?: Array<"active" | "revoked" | "pending">;
}

/** The people most tests use: three on call, a lead, a viewer. */
export const team: PersonPlan[] = [
  { id: "alice", name: "Alice Ng", roles: ["oncall"] },
  { id: "bob", name: "Bob Roy", roles: ["oncall"] },
  { id: "carol", name: "Carol Diaz", roles: ["oncall"] },
  { id: "dan", name: "Dan Lee", roles: ["lead"] },
  { id: "erin", name: "Erin Wu", roles: ["viewer"] },
];

/** A directory of `plans`, each person's links made in the simulator over HTTP. */
export interface PeopleOnMessaging {
  client: MessagingClient;
  directory: ApproverDirectory;
  /** Each person's links, by id, in the directory's order. */
  links: Record<string, string[]>;
  person(id: string): ApproverPerson;
  /** The link a person's question went to, by the question's interaction. */
  linkOf(interaction: InteractionRecord): string;
  /** Whose question an interaction is (directory id), by its link. */
  whoseIs(interaction: InteractionRecord): string | undefined;
  /** A messaging approver on `fallbackLink` (the simulator's seeded link), polling fast. */
  approver(
    options?: Partial<ConstructorParameters<typeof MessagingApprover>[0]>,
  ): MessagingApprover;
}

export async function peopleOnMessaging(
  messaging: MessagingSimulator,
  plans: readonly PersonPlan[] = team,
): Promise<PeopleOnMessaging> {
  const client = new MessagingClient({ baseUrl: messaging.url, token: messaging.token });
  const links: Record<string, string[]> = {};
  for (const plan of plans) {
    links[plan.id] = [];
    for (const state of plan.links ?? ["active"]) {
      const link = await client.createSubscriptionLink({ label: `${plan.name} (${state})` });
      if (state !== "pending") messaging.activateLink(link.subscriptionLinkId);
      if (state === "revoked") messaging.revokeLink(link.subscriptionLinkId);
      links[plan.id]!.push(link.subscriptionLinkId);
    }
  }
  const directory = approverDirectory({
    people: plans.map((plan) => ({
      id: plan.id,
      name: plan.name,
      roles: plan.roles,
      identities: { messaging: links[plan.id]! },
    })),
  });
  const linkOf = (interaction: InteractionRecord) => interaction.subscription_link_id;
  return {
    client,
    directory,
    links,
    person: (id) => directory.person(id) as ApproverPerson,
    linkOf,
    whoseIs: (interaction) =>
      Object.entries(links).find(([, owned]) => owned.includes(linkOf(interaction)))?.[0],
    approver: (options = {}) =>
      new MessagingApprover({
        client,
        subscriptionLinkId: messaging.approverLinkId,
        pollIntervalMs: 5,
        maxPollIntervalMs: 10,
        ...options,
      }),
  };
}

/** `action` with who may approve it: the people named, `required` of them, and an escalation. */
export function askingPeople(
  action: ApprovalAction,
  people: PeopleOnMessaging,
  who: {
    ids: string[];
    required: number;
    excluded?: string;
    escalation?: { ids: string[]; roles: string[]; afterMs: number };
  },
): ApprovalAction {
  const whoMayApprove: WhoMayApprove = {
    roles: ["oncall"],
    required: who.required,
    people: who.ids.map((id) => people.person(id)),
    ...(who.excluded !== undefined ? { excluded: who.excluded } : {}),
    ...(who.escalation !== undefined
      ? {
          escalation: {
            roles: who.escalation.roles,
            afterMs: who.escalation.afterMs,
            people: who.escalation.ids.map((id) => people.person(id)),
          },
        }
      : {}),
  };
  return { ...action, requiredApprovers: who.required, whoMayApprove };
}

/** Resolves once the simulator holds `count` interactions, and returns them. */
export async function questionsOut(
  messaging: MessagingSimulator,
  count: number,
): Promise<InteractionRecord[]> {
  while (messaging.interactions().length < count) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return messaging.interactions();
}
