import { describe, isObject, type LayoutReader } from "./layout-reader.js";
import { formatKey, type KeyPath } from "./source-lines.js";

/** Checks `tabs[]` (`name`, `url`, `icon`) and `topAnchor` (`name`, `icon`), at the top level or in `navigation`. */
export function checkTabsAndAnchor(reader: LayoutReader): void {
  const tabsPath: KeyPath =
    reader.get(["tabs"]) === undefined && reader.get(["navigation", "tabs"]) !== undefined
      ? ["navigation", "tabs"]
      : ["tabs"];
  const tabs = reader.get(tabsPath);
  if (tabs !== undefined) {
    if (!Array.isArray(tabs)) {
      reader.navigationInvalid(
        tabsPath,
        `${formatKey(tabsPath)} is ${describe(tabs)}, expected an array`,
        'Write tabs as [{"name": "API reference", "url": "api-reference", "icon": "code"}].',
      );
    } else {
      tabs.forEach((tab: unknown, index) => {
        const path = [...tabsPath, index];
        if (!isObject(tab)) {
          reader.navigationInvalid(
            path,
            `${formatKey(path)} is ${describe(tab)}, expected {name, url, icon}`,
            'Write it as {"name": "API reference", "url": "api-reference", "icon": "code"}.',
          );
          return;
        }
        requireString(reader, tab, path, "name", '"API reference"');
        requireString(reader, tab, path, "url", '"api-reference"');
        optionalString(reader, tab, path, "icon", '"code"');
      });
    }
  }
  const anchorPath: KeyPath =
    reader.get(["topAnchor"]) === undefined && reader.get(["navigation", "topAnchor"]) !== undefined
      ? ["navigation", "topAnchor"]
      : ["topAnchor"];
  const anchor = reader.get(anchorPath);
  if (anchor === undefined) return;
  if (!isObject(anchor)) {
    reader.navigationInvalid(
      anchorPath,
      `${formatKey(anchorPath)} is ${describe(anchor)}, expected {name, icon}`,
      'Write it as {"name": "Documentation", "icon": "book-open"}.',
    );
    return;
  }
  requireString(reader, anchor, anchorPath, "name", '"Documentation"');
  optionalString(reader, anchor, anchorPath, "icon", '"book-open"');
}

function requireString(
  reader: LayoutReader,
  object: Record<string, unknown>,
  path: KeyPath,
  key: string,
  example: string,
): void {
  const value = object[key];
  if (typeof value === "string" && value.trim() !== "") return;
  reader.navigationInvalid(
    [...path, key],
    `${formatKey([...path, key])} is ${describe(value)}, expected a non-empty string`,
    `Set "${key}" to a string such as ${example}.`,
  );
}

function optionalString(
  reader: LayoutReader,
  object: Record<string, unknown>,
  path: KeyPath,
  key: string,
  example: string,
): void {
  if (object[key] === undefined || typeof object[key] === "string") return;
  reader.navigationInvalid(
    [...path, key],
    `${formatKey([...path, key])} is ${describe(object[key])}, expected a string`,
    `Set "${key}" to a string such as ${example}, or remove it.`,
  );
}
