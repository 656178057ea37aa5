import { isRefusalCode, type RefusalCode } from "../../agent/refusal-code.js";
import { buildOnFirstUse } from "../../internal/build-on-first-use.js";
import { textDigest } from "../../internal/canonical-json.js";
import { loadZod } from "../../internal/load-zod.js";

/** A question as the messaging service took it: its interaction, its message and the link it went to. */
export interface SentQuestion {
  interactionId: string;
  messageId: string;
  link: string;
  /** The directory id of the person the link is theirs, for a question put to people of a directory. */
  person?: string;
  /**
   * The run store recorded, when the question was asked, that the
   * interaction holds this question (`RunStore.bindInteraction`); absent,
   * the answer's read binds it first.
   */
  bound?: true;
}

/** One question of a ticket, and the actions it asks about. */
export interface TicketQuestion {
  /**
   * The actions it asks about, by the agent's approval id, with the
   * fingerprint asked about; in a question about several, each with the
   * number it was shown under.
   */
  items: TicketItem[];
  /**
   * Where it went: one interaction, two for a question put to two links
   * (the first link first), or one per person asked from a directory.
   */
  sent?: SentQuestion[];
  /**
   * How many distinct people (or, without a directory, links) must each
   * approve, for a question put to people of a directory; absent for one
   * link, and for two links (both must).
   */
  required?: number;
  /**
   * Escalation by role, for a question put to people: when nobody decided
   * by `askedAt` + `afterMs`, these people are asked too (each on their
   * first active link), and count like the others. Kept in the ticket so a
   * resumed run in another process asks them.
   */
  escalation?: TicketEscalation;
  /** The question's line saying who is asked and how many must approve, as it was sent. */
  whoIsAsked?: string;
  /** `sha256:` + hex digest of the question's text, as sent. */
  digest?: string;
  /** Why it was not asked: the refusal each of its actions gets. */
  refused?: { code: RefusalCode; reason: string };
}

/** {@link TicketQuestion.escalation}. */
export interface TicketEscalation {
  /** When the first questions went out (ISO 8601). */
  askedAt: string;
  afterMs: number;
  /** The people to ask then, by directory id, with their messaging links in the directory's order. */
  people: Array<{ person: string; name: string; links: string[] }>;
}

/** The most people one question is put to at once (and the most its escalation asks). */
export const maximumQuestionsSent = 100;

/** An action asked about in a question. */
export interface TicketItem {
  approvalId: string;
  fingerprint: string;
  number?: number;
}

const ticketSchema = buildOnFirstUse(() => {
  const { z } = loadZod();
  const sent = z.object({
    interactionId: z.string(),
    messageId: z.string(),
    link: z.string(),
    person: z.string().optional(),
    bound: z.literal(true).optional(),
  });
  const escalation = z.object({
    askedAt: z.string(),
    afterMs: z.number().int().positive(),
    people: z
      .array(z.object({ person: z.string(), name: z.string(), links: z.array(z.string()) }))
      .max(maximumQuestionsSent),
  });
  return z.object({
    questions: z.array(
      z.object({
        items: z.array(
          z.object({
            approvalId: z.string(),
            fingerprint: z.string(),
            number: z.number().int().positive().optional(),
          }),
        ),
        sent: z.array(sent).min(1).max(maximumQuestionsSent).optional(),
        required: z.number().int().positive().optional(),
        escalation: escalation.optional(),
        whoIsAsked: z.string().optional(),
        digest: z.string().optional(),
        refused: z
          .object({ code: z.string().refine(isRefusalCode), reason: z.string() })
          .optional(),
      }),
    ),
  });
});

/**
 * The name a question goes by in the run store's bindings of interactions
 * (`RunStore.bindInteraction`): a digest of the approval ids it asks about,
 * which the agent mints and never reuses, so no two questions share it.
 */
export function questionName(items: ReadonlyArray<{ approvalId: string }>): string {
  return textDigest(JSON.stringify(items.map((item) => item.approvalId)));
}

/**
 * The ticket `MessagingApprover.ask` hands back: every question it put, as
 * JSON. The agent keeps it in the run's state; only the approver reads it.
 */
export function writeTicket(questions: readonly TicketQuestion[]): string {
  return JSON.stringify({ questions });
}

/** The questions a ticket names, or `undefined` when it is not one of `writeTicket`'s. */
export function readTicket(ticket: string): TicketQuestion[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(ticket);
  } catch {
    return undefined;
  }
  const read = ticketSchema().safeParse(parsed);
  return read.success ? (read.data.questions as TicketQuestion[]) : undefined;
}
