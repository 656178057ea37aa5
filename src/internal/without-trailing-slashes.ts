/**
 * `text` without the slashes at its end (`https://a.example/v1//` gives
 * `https://a.example/v1`), in time linear in its length: the regular
 * expression `/\/+$/` rescans a run of slashes once per slash when
 * something other than the end follows it.
 */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}
