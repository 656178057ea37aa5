/** A list cut to a size the model can read, and how much was cut. */
export interface TrimmedList<Item> {
  shown: Item[];
  /** How many items were left out (0 when none). */
  omitted: number;
}

/** The first `maximum` items of `items`, and the number left out. */
export function trimList<Item>(items: readonly Item[], maximum: number): TrimmedList<Item> {
  return {
    shown: items.slice(0, maximum),
    omitted: Math.max(0, items.length - maximum),
  };
}
