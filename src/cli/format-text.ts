/** `text` cut to `maximum` characters, with `…` when cut; on one line. */
export function truncate(text: string, maximum: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > maximum ? `${line.slice(0, Math.max(0, maximum - 1))}…` : line;
}

/** `0.4s`, `12s`, `3m05s`. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 10_000) return `${(milliseconds / 1000).toFixed(1)}s`;
  const seconds = Math.floor(milliseconds / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}

/** A URL without user name, password, query or fragment, safe to print. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    parsed.search = "";
    parsed.hash = "";
    return parsed.href;
  } catch {
    return url.replace(/\/\/[^/@]*@/, "//");
  }
}
