import type { SeededRandom } from "../http/seeded-random.js";
import type { DocsState, Documentation } from "./docs-state.js";
import { pageTitle } from "./page-title.js";
import { partnerPortalFiles } from "./partner-portal-files.js";
import { storefrontFiles } from "./storefront-files.js";

const seededAt = "2025-05-20T14:30:00Z";

/**
 * The documentation simulator's starting data: the user, the faulty
 * "Storefront API" project and the clean "Partner Portal" project.
 */
export function createSeededDocsState(random: SeededRandom): DocsState {
  return {
    user: { id: random.uuid(), email: "dana.writer@storefront.example", name: "Dana Writer" },
    documentations: [
      seedDocumentation(random, "Storefront API", "storefront", storefrontFiles),
      seedDocumentation(random, "Partner Portal", "partner-portal", partnerPortalFiles),
    ],
    pushes: [],
  };
}

function seedDocumentation(
  random: SeededRandom,
  name: string,
  subdomain: string,
  files: readonly (readonly [string, string])[],
): Documentation {
  return {
    documentationId: random.uuid(),
    name,
    subdomain,
    createdAt: "2024-11-04T10:00:00Z",
    files: new Map(
      files.map(([path, content]) => [
        path,
        { path, title: pageTitle(path, content), content, updatedAt: seededAt },
      ]),
    ),
  };
}
