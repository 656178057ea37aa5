/**
 * Maps `items` through `worker` with at most `limit` workers in flight;
 * results come back in the order of `items`, whatever order they finish in.
 */
export async function runConcurrently<Item, Result>(
  items: readonly Item[],
  limit: number,
  worker: (item: Item, index: number) => Promise<Result>,
): Promise<Result[]> {
  if (items.length === 1) return [await worker(items[0] as Item, 0)];
  const results = new Array<Result>(items.length);
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await worker(items[index] as Item, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  return results;
}
