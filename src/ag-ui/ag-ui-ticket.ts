/** What an AG-UI question offered, as its ticket keeps it in the run's state. */
export interface AgUiTicket {
  /** When the interrupts expire (ISO 8601); absent for questions asked before interrupts expired. */
  expiresAt?: string | undefined;
  /**
   * The approval ids whose interrupt offered an edit; absent for questions
   * asked before tickets recorded it (the gate still refuses an unoffered edit).
   */
  edits?: string[] | undefined;
}

const prefix = "ag-ui:";

/** The ticket `AgUiApprover.ask` hands back: what the interrupts offered, kept in the run's state. */
export function writeAgUiTicket(ticket: AgUiTicket): string {
  return `${prefix}${JSON.stringify(ticket)}`;
}

/**
 * What a ticket says; `{}` for a ticket of an older version (the bare
 * `ag-ui-interrupt`) or one this code cannot read: no expiry, no edits known.
 */
export function readAgUiTicket(ticket: string | undefined): AgUiTicket {
  if (ticket === undefined || !ticket.startsWith(prefix)) return {};
  try {
    const value = JSON.parse(ticket.slice(prefix.length)) as Record<string, unknown>;
    const expiresAt =
      typeof value.expiresAt === "string" && !Number.isNaN(Date.parse(value.expiresAt))
        ? value.expiresAt
        : undefined;
    const edits = Array.isArray(value.edits)
      ? value.edits.filter((id): id is string => typeof id === "string")
      : undefined;
    return { ...(expiresAt ? { expiresAt } : {}), ...(edits ? { edits } : {}) };
  } catch {
    return {};
  }
}

/** Whether a ticket's interrupts expired by `now`. */
export function ticketExpired(ticket: AgUiTicket, now: Date = new Date()): boolean {
  return ticket.expiresAt !== undefined && Date.parse(ticket.expiresAt) <= now.getTime();
}
