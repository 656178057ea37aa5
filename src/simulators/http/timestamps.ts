/** RFC 3339 text of a date, in UTC, to the second: `2025-06-02T09:00:00Z`. */
export function toRfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The date `hours` (may be fractional or negative) after `date`. */
export function addHours(date: Date, hours: number): Date {
  return new Date(date.getTime() + hours * 3_600_000);
}
