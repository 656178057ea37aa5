/** The last second a timestamp was made in, and its text up to that second. */
let lastSecond = { second: Number.NaN, text: "" };

/**
 * `new Date(ms).toISOString()`, from a text kept per second: most
 * timestamps of a busy process fall in a second already formatted, and
 * formatting a date was a few percent of a short run's own time.
 */
export function isoTimestamp(ms: number = Date.now()): string {
  // A Date keeps whole milliseconds, cut towards zero (-0.5 is 0, not -1).
  const time = Math.trunc(ms);
  const second = Math.floor(time / 1000);
  if (second !== lastSecond.second) {
    const text = new Date(second * 1000).toISOString();
    // A year past 9999 (or before 0) is written with six digits: not kept.
    if (text.length !== 24) return new Date(time).toISOString();
    lastSecond = { second, text: text.slice(0, 19) };
  }
  const millis = time - second * 1000;
  return `${lastSecond.text}.${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`;
}
