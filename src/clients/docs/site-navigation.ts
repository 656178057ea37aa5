import { checkTabsAndAnchor } from "./check-tabs-and-anchor.js";
import { describe, isObject, type LayoutReader } from "./layout-reader.js";
import { type OperationReference, parseOperationReference } from "./operation-reference.js";
import { formatKey, type KeyPath } from "./source-lines.js";

/** One item of a group's `pages`: a page path or a `METHOD /path` operation. */
export interface NavigationEntry {
  text: string;
  keyPath: KeyPath;
  /** Set when the entry names an operation. */
  reference?: OperationReference;
}

/** A navigation group, nested groups flattened (each keeps its own entries). */
export interface NavigationGroup {
  label: string;
  keyPath: KeyPath;
  /** The group's OpenAPI file: its own `openapi`, else its parent group's. */
  openapi?: string;
  /** Whether `openapi` is set on this group itself. */
  ownsOpenapi: boolean;
  entries: NavigationEntry[];
}

/**
 * Reads `navigation` (`languages[]` with `language`, `default`, `groups`;
 * `groups` directly is accepted too), `tabs[]` and `topAnchor` (at the top
 * level or inside `navigation`), recording every shape problem as a
 * `navigation-invalid` finding. Returns the groups of every language.
 */
export function readNavigation(reader: LayoutReader): NavigationGroup[] {
  const groups: NavigationGroup[] = [];
  checkTabsAndAnchor(reader);
  const navigation = reader.get(["navigation"]);
  if (navigation === undefined) return groups;
  if (!isObject(navigation)) {
    reader.navigationInvalid(
      ["navigation"],
      `navigation is ${describe(navigation)}, expected an object`,
      'Write navigation as {"languages": [{"language": "en", "default": true, "groups": [...]}]}.',
    );
    return groups;
  }
  if (navigation.languages === undefined && navigation.groups === undefined) {
    reader.navigationInvalid(
      ["navigation"],
      "navigation has neither languages nor groups, so no page is in the sidebar",
      'Add "languages": [{"language": "en", "default": true, "groups": [{"group": "Guides", "pages": ["index"]}]}].',
    );
  }
  if (navigation.languages !== undefined) readLanguages(reader, navigation.languages, groups);
  if (navigation.groups !== undefined)
    readGroupList(reader, navigation.groups, ["navigation", "groups"], undefined, groups);
  return groups;
}

function readLanguages(reader: LayoutReader, languages: unknown, groups: NavigationGroup[]): void {
  const path: KeyPath = ["navigation", "languages"];
  if (!Array.isArray(languages)) {
    reader.navigationInvalid(
      path,
      `navigation.languages is ${describe(languages)}, expected an array`,
      'Write it as [{"language": "en", "default": true, "groups": [...]}].',
    );
    return;
  }
  let defaults = 0;
  languages.forEach((language: unknown, index) => {
    const languagePath = [...path, index];
    if (!isObject(language)) {
      reader.navigationInvalid(
        languagePath,
        `${formatKey(languagePath)} is ${describe(language)}, expected an object`,
        'Write it as {"language": "en", "default": true, "groups": [...]}.',
      );
      return;
    }
    if (typeof language.language !== "string" || language.language.trim() === "") {
      reader.navigationInvalid(
        [...languagePath, "language"],
        `${formatKey(languagePath)}.language is ${describe(language.language)}, expected a language code`,
        'Set "language" to a code such as "en" or "fr".',
      );
    }
    if (language.default !== undefined && typeof language.default !== "boolean") {
      reader.navigationInvalid(
        [...languagePath, "default"],
        `${formatKey(languagePath)}.default is ${describe(language.default)}, expected true or false`,
        "Set default to true for the site's main language, false (or leave it out) for the others.",
      );
    }
    if (language.default === true) defaults++;
    if (!Array.isArray(language.groups)) {
      reader.navigationInvalid(
        [...languagePath, "groups"],
        `${formatKey(languagePath)}.groups is ${describe(language.groups)}, expected an array of groups`,
        'Add "groups": [{"group": "Guides", "pages": ["index"]}].',
      );
      return;
    }
    readGroupList(reader, language.groups, [...languagePath, "groups"], undefined, groups);
  });
  if (defaults > 1) {
    reader.navigationInvalid(
      path,
      `navigation.languages has ${defaults} languages with default: true`,
      "Mark exactly one language as the default.",
    );
  }
}

function readGroupList(
  reader: LayoutReader,
  list: unknown,
  path: KeyPath,
  inherited: string | undefined,
  groups: NavigationGroup[],
): void {
  if (!Array.isArray(list)) {
    reader.navigationInvalid(
      path,
      `${formatKey(path)} is ${describe(list)}, expected an array of groups`,
      'Write it as [{"group": "Guides", "pages": ["index"]}].',
    );
    return;
  }
  list.forEach((group: unknown, index) => {
    readGroup(reader, group, [...path, index], inherited, groups);
  });
}

function readGroup(
  reader: LayoutReader,
  value: unknown,
  path: KeyPath,
  inherited: string | undefined,
  groups: NavigationGroup[],
): void {
  const key = formatKey(path);
  if (!isObject(value)) {
    reader.navigationInvalid(
      path,
      `${key} is ${describe(value)}, expected a group object`,
      'Write it as {"group": "Guides", "pages": ["index"]}.',
    );
    return;
  }
  const label = typeof value.group === "string" && value.group.trim() !== "" ? value.group : key;
  if (label === key) {
    reader.navigationInvalid(
      [...path, "group"],
      `${key}.group is ${describe(value.group)}, expected the group's label`,
      'Set "group" to the label shown in the sidebar, e.g. "API reference".',
    );
  }
  let openapi = inherited;
  let ownsOpenapi = false;
  if (value.openapi !== undefined) {
    if (typeof value.openapi === "string" && value.openapi.trim() !== "") {
      openapi = value.openapi;
      ownsOpenapi = true;
    } else {
      reader.navigationInvalid(
        [...path, "openapi"],
        `${key}.openapi is ${describe(value.openapi)}, expected the path of an OpenAPI file`,
        'Set "openapi" to a repository path such as "openapi.yaml", or remove it.',
      );
    }
  }
  const group: NavigationGroup = {
    label,
    keyPath: path,
    ownsOpenapi,
    entries: [],
    ...(openapi !== undefined ? { openapi } : {}),
  };
  groups.push(group);
  if (value.pages === undefined) {
    if (!ownsOpenapi) {
      reader.navigationInvalid(
        path,
        `group "${label}" (${key}) has no pages and no openapi, so it shows nothing`,
        'Add "pages": ["page/path", "GET /operation"], or "openapi" to list every operation of a spec.',
      );
    }
    return;
  }
  if (!Array.isArray(value.pages)) {
    reader.navigationInvalid(
      [...path, "pages"],
      `${key}.pages is ${describe(value.pages)}, expected an array`,
      'Write pages as an array of page paths and "METHOD /path" operations.',
    );
    return;
  }
  value.pages.forEach((page: unknown, index) => {
    const pagePath = [...path, "pages", index];
    if (typeof page === "string" && page.trim() !== "") {
      const reference = parseOperationReference(page);
      group.entries.push({ text: page, keyPath: pagePath, ...(reference ? { reference } : {}) });
    } else if (isObject(page)) {
      readGroup(reader, page, pagePath, openapi, groups);
    } else {
      reader.navigationInvalid(
        pagePath,
        `${formatKey(pagePath)} is ${describe(page)}, expected a page path, "METHOD /path" or a nested group`,
        'Use a page path such as "guides/quickstart" or an operation such as "GET /pets".',
      );
    }
  });
}
