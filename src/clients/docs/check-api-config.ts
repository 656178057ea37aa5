import { closestWord } from "./closest-word.js";
import { describe, type LayoutReader } from "./layout-reader.js";
import { finding } from "./site-finding.js";

const displayValues = ["interactive", "simplified", "hidden"];
/** Values of `api.auth.method` and of a page's `authMethod`. */
export const authMethods = ["bearer", "none"];
const knownLanguages = ["curl", "javascript", "python"];
const knownDefaults = ["required"];

/**
 * Checks the `api` keys of layout.json the seed documents: baseUrl, openapi,
 * auth.method, playground.display and .proxy, examples.languages,
 * .defaults and .prefill. (The proxy warning needs the specs; see
 * `checkPlaygroundProxy`.)
 */
export function checkApiConfig(reader: LayoutReader): void {
  const api = reader.object(["api"], '{"openapi": "openapi.yaml"}');
  if (!api) return;
  const baseUrl = reader.string(["api", "baseUrl"], '"https://api.example.com/v1"');
  if (baseUrl !== undefined && !/^https?:\/\/[^/\s]+/i.test(baseUrl)) {
    reader.invalid(
      ["api", "baseUrl"],
      `api.baseUrl "${baseUrl}" is not an absolute http(s) address, so the playground and examples cannot call it`,
      'Write the full address, e.g. "https://api.example.com/v1".',
    );
  }
  const openapi = reader.get(["api", "openapi"]);
  if (
    openapi !== undefined &&
    typeof openapi !== "string" &&
    !(Array.isArray(openapi) && openapi.every((item) => typeof item === "string"))
  ) {
    reader.invalid(
      ["api", "openapi"],
      `api.openapi is ${describe(openapi)}, expected the path of an OpenAPI file`,
      'Set api.openapi to a repository path such as "openapi.yaml".',
    );
  }
  if (reader.object(["api", "auth"], '{"method": "bearer"}')) {
    reader.oneOf(["api", "auth", "method"], authMethods);
  }
  if (reader.object(["api", "playground"], '{"display": "interactive"}')) {
    reader.oneOf(["api", "playground", "display"], displayValues);
    reader.boolean(["api", "playground", "proxy"]);
  }
  if (reader.object(["api", "examples"], '{"languages": ["curl", "python"]}')) {
    checkExampleLanguages(reader);
    const defaults = reader.string(["api", "examples", "defaults"], '"required"');
    if (defaults !== undefined && !knownDefaults.includes(defaults)) {
      reader.findings.push(
        finding(
          "warning",
          "config-unusual-value",
          reader.where(["api", "examples", "defaults"]),
          `api.examples.defaults is "${defaults}"; the only value known to work is "required"`,
          'Use "required" (examples then fill in the required parameters) unless the service documents this value.',
        ),
      );
    }
    reader.boolean(["api", "examples", "prefill"]);
  }
}

function checkExampleLanguages(reader: LayoutReader): void {
  const path = ["api", "examples", "languages"];
  const languages = reader.get(path);
  if (languages === undefined) return;
  if (!Array.isArray(languages) || !languages.every((item) => typeof item === "string")) {
    reader.invalid(
      path,
      `api.examples.languages is ${describe(languages)}, expected an array of language names`,
      'Write it as an array of strings, e.g. ["curl", "javascript", "python"].',
    );
    return;
  }
  languages.forEach((language: string, index) => {
    if (knownLanguages.includes(language)) return;
    const closest = closestWord(language.toLowerCase(), knownLanguages);
    reader.findings.push(
      finding(
        "warning",
        "config-unusual-value",
        reader.where([...path, index]),
        `api.examples.languages has "${language}"; the languages known to work are ${knownLanguages.join(", ")}`,
        closest && closest !== language
          ? `Did you mean "${closest}"? Otherwise check that the service renders "${language}" examples.`
          : `Check that the service renders "${language}" examples, or use ${knownLanguages.join(", ")}.`,
      ),
    );
  });
}
