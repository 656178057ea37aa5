import type { DocsClient } from "../../clients/docs/docs-client.js";

/** The `DocsClient` methods the docs tools call, so a wrapper or a test double can stand in. */
export type DocsToolsClient = Pick<
  DocsClient,
  "listDocumentations" | "getManifest" | "pullFiles" | "pushFiles" | "editFile" | "checkSite"
>;

/** The method names of `DocsToolsClient`, checked when the tools are built. */
export const docsToolsClientMethods: readonly (keyof DocsToolsClient)[] = [
  "listDocumentations",
  "getManifest",
  "pullFiles",
  "pushFiles",
  "editFile",
  "checkSite",
];
