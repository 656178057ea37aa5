import { editDistance } from "./edit-distance.js";

/** The allowed word nearest to `value` (ignoring case), if near enough to be a typo. */
export function closestWord(value: string, allowed: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const word of allowed) {
    const distance = editDistance(value.toLowerCase(), word);
    if (!best || distance < best.distance) best = { word, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(value.length / 3)) ? best.word : undefined;
}
