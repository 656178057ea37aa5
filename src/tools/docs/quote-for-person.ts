const shownTextLength = 120;

/** A text quoted for an approval line, cut when long. */
export function quoteForPerson(text: string): string {
  const shown = text.length > shownTextLength ? `${text.slice(0, shownTextLength)}…` : text;
  return JSON.stringify(shown);
}
