import { readFileSync } from "node:fs";
import type { SiteCheckInput, SitePage } from "../../../src/clients/docs/site-finding.js";

const root = new URL("../../fixtures/sites/petstore/", import.meta.url);

/** Reads a file of the petstore fixture site. */
export function readSiteFile(path: string): string {
  return readFileSync(new URL(path, root), "utf8");
}

/** Paths of the fixture's pages. */
export const pagePaths = ["index.mdx", "guides/quickstart.mdx", "api-reference/create-pet.mdx"];

/** Text edits applied to the clean fixture to produce one fault. */
export interface SiteEdits {
  layout?: (text: string) => string;
  openapi?: (text: string) => string;
  pages?: Record<string, (text: string) => string>;
  /** Extra pages to add. */
  extraPages?: SitePage[];
}

/** The clean petstore site as `checkSiteConfig` input, with `edits` applied. */
export function petstoreSite(edits: SiteEdits = {}): SiteCheckInput {
  const same = (text: string) => text;
  return {
    layout: (edits.layout ?? same)(readSiteFile("layout.json")),
    openapi: { "openapi.yaml": (edits.openapi ?? same)(readSiteFile("openapi.yaml")) },
    pages: [
      ...pagePaths.map((path) => ({
        path,
        content: (edits.pages?.[path] ?? same)(readSiteFile(path)),
      })),
      ...(edits.extraPages ?? []),
    ],
  };
}

/** Replaces `from` (which must occur) with `to`. */
export function replacing(from: string, to: string): (text: string) => string {
  return (text) => {
    if (!text.includes(from)) throw new Error(`fixture edit: ${JSON.stringify(from)} not found`);
    return text.replace(from, to);
  };
}
