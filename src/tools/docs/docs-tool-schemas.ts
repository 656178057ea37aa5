import { buildOnFirstUse } from "../../internal/build-on-first-use.js";
import { loadZod } from "../../internal/load-zod.js";

/**
 * Parameter schemas of the docs tools, carrying the rules `DocsClient`
 * checks (non-empty ids, paths and messages, every pushed file complete, a
 * path pushed once), so a mistake reaches the model before anything is sent.
 */

/** Most files one pull_docs_files call reads. */
export const maximumPulledFiles = 10;
/** Most files one push_docs_files call writes. */
export const maximumPushedFiles = 20;
/** Longest file content a pull shows; the rest is cut and the full length given. */
export const maximumPulledContentLength = 20_000;
/** Marks pulled content that was cut; such content must never be pushed back. */
export const trimmedContentMarker = "[trimmed by pull_docs_files:";

/** The schemas, built once on first use (so importing Switchyard does not load zod). */
function buildDocsToolSchemas() {
  const { z } = loadZod();

  function nonBlank(what: string) {
    return z
      .string({ error: `must be a string: ${what}` })
      .regex(/\S/, `must not be empty: ${what}`);
  }

  const documentationId = nonBlank(
    "the documentationId of the project, as list_documentations returns it",
  ).describe("The project's documentationId, from list_documentations.");

  const filePath = nonBlank('a file path such as "guides/quickstart.mdx"');

  const changeMessage = nonBlank(
    'a short description of the change, e.g. "Fix the support address"',
  ).describe("Change message recorded with the push.");

  /** list_documentations */
  const listDocumentationsParameters = z.strictObject({});

  /** get_docs_manifest */
  const getDocsManifestParameters = z.strictObject({ documentation_id: documentationId });

  /** pull_docs_files */
  const pullDocsFilesParameters = z.strictObject({
    documentation_id: documentationId,
    paths: z
      .array(filePath)
      .min(1, "give at least one path, as get_docs_manifest lists them")
      .max(
        maximumPulledFiles,
        `at most ${maximumPulledFiles} paths per call: pull in several calls`,
      )
      .describe("Paths of the files to read, as get_docs_manifest lists them."),
  });

  /** push_docs_files */
  const pushDocsFilesParameters = z.strictObject({
    documentation_id: documentationId,
    files: z
      .array(
        z.strictObject({
          path: filePath,
          title: z.string({ error: "must be a string: the page title, as the pull returned it" }),
          content: z
            .string({ error: "must be a string: the whole new content of the file" })
            .refine((content) => !content.includes(trimmedContentMarker), {
              error:
                "is content pull_docs_files trimmed; pushing it would cut the page short. Use edit_docs_file to change a long page",
            }),
        }),
      )
      .min(1, "give at least one file to push")
      .max(maximumPushedFiles, `at most ${maximumPushedFiles} files per call`)
      .refine((files) => new Set(files.map((file) => file.path)).size === files.length, {
        error: "a path appears twice: push each path once",
      })
      .describe("Whole files to write: {path, title, content} each."),
    message: changeMessage,
  });

  /** edit_docs_file */
  const editDocsFileParameters = z.strictObject({
    documentation_id: documentationId,
    path: filePath.describe("Path of the page, as get_docs_manifest lists it."),
    find: z
      .string({ error: "must be a string: the exact text to replace" })
      .min(1, "must not be empty: the exact text to replace")
      .describe("Exact, case-sensitive text to find; its first occurrence is replaced."),
    replace: z
      .string({ error: 'must be a string: the new text ("" deletes the found text)' })
      .describe('The text to put in its place ("" deletes it).'),
    message: changeMessage,
  });

  /** check_site_config */
  const checkSiteConfigParameters = z.strictObject({
    documentation_id: documentationId,
    layout_path: nonBlank('the path of the site configuration, e.g. "layout.json"')
      .optional()
      .describe('Path of the site configuration in the project. Default "layout.json".'),
  });
  return {
    listDocumentationsParameters,
    getDocsManifestParameters,
    pullDocsFilesParameters,
    pushDocsFilesParameters,
    editDocsFileParameters,
    checkSiteConfigParameters,
  };
}

/** The docs tools' parameter schemas, by name. */
export type DocsToolSchemas = ReturnType<typeof buildDocsToolSchemas>;

/** The docs tools' parameter schemas, built on the first call. */
export const docsToolSchemas: () => DocsToolSchemas = buildOnFirstUse(buildDocsToolSchemas);
