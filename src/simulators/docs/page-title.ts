import { parse } from "yaml";

/**
 * The title a file is listed under: the `title` of an `.mdx`/`.md` page's
 * front matter, else the file name.
 */
export function pageTitle(path: string, content: string): string {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(content);
  if (match?.[1] !== undefined) {
    try {
      const frontMatter: unknown = parse(match[1]);
      if (typeof frontMatter === "object" && frontMatter !== null) {
        const title = (frontMatter as Record<string, unknown>).title;
        if (typeof title === "string" && title.trim() !== "") return title;
      }
    } catch {
      // Broken front matter is a page fault the library reports; the listing falls back to the name.
    }
  }
  return path.split("/").pop() ?? path;
}
