import { editDistance } from "./edit-distance.js";

/**
 * The paths among `candidates` most like `target`, best first, at most
 * `limit`. A candidate qualifies when it shares a path segment with the
 * target (compared without extension and letter case) or is within a few
 * edits of it; shared segments weigh more than raw edits, so
 * `guides/quickstart.md` finds `guides/quick-start.mdx` before `index.mdx`.
 */
export function closestPaths(target: string, candidates: readonly string[], limit = 3): string[] {
  const normalizedTarget = normalize(target);
  const targetStems = new Set(stems(normalizedTarget));
  const scored: { path: string; score: number }[] = [];
  for (const candidate of new Set(candidates)) {
    const normalized = normalize(candidate);
    const distance = editDistance(normalizedTarget, normalized);
    const shared = stems(normalized).filter((stem) => targetStems.has(stem)).length;
    const near = distance <= Math.max(2, Math.floor(normalizedTarget.length * 0.4));
    if (shared === 0 && !near) continue;
    scored.push({ path: candidate, score: distance - 4 * shared });
  }
  scored.sort((left, right) => left.score - right.score || left.path.localeCompare(right.path));
  return scored.slice(0, limit).map((entry) => entry.path);
}

function normalize(path: string): string {
  return path
    .trim()
    .replace(/^\.?\/+/, "")
    .toLowerCase();
}

function stems(path: string): string[] {
  return path
    .split("/")
    .map((segment) => segment.replace(/\.[a-z0-9]+$/, ""))
    .filter((segment) => segment !== "");
}
