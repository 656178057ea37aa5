import { isSecretKey, redactedMarker } from "../../internal/redact.js";
import {
  escapeHtml,
  escapeShownLine,
  escapeShownText,
  escapeUntrustedText,
  jsonEscape,
  shownJsonString,
} from "../../internal/untrusted-text.js";
import type { ActionDescription, ToolTarget } from "../../tools/tool.js";
import type { StandingScope } from "./standing-approval.js";

/**
 * What a person is shown of one action before approving it, built once by
 * the gate and only laid out by each channel (the
 * messaging question, the inbox page, an AG-UI interrupt, an MCP
 * elicitation, the terminal).
 *
 * Every string in it is the tool's own words or a value, escaped once by
 * the same rule, which is exact to undo:
 * controls, line breaks, bidirectional and zero-width characters, combining
 * marks and every other character that would act on the text around it are
 * written out as `\n`, `\xHH`, `\uHHHH` or `\u{H...}`; a backslash is
 * doubled and a double quote written `\"`, so a value stands inside quotes;
 * a character outside ASCII in a URL's host is written out as an escape.
 *
 * Nothing a person judges is masked. Only two kinds of value show as a
 * placeholder, which begins with `[redacted]` and says what it stands for: a
 * value equal to a secret the agent knows (`[redacted] registered secret`)
 * and the value of a secret-named field (`[redacted] secret field token`).
 * A value never holds the text `[redacted]` itself: the escaping writes it
 * `\x5bredacted]` (`\u005bredacted]` in JSON). When a secret the agent knows
 * sits inside a value (a host, a path, a message), the gate does not ask at
 * all: it refuses the call (`secret_in_value`).
 */
export interface ActionView {
  /** The tool's name. */
  tool: string;
  /** What will happen, in the tool's words; empty when the tool said nothing. */
  summary: string;
  /** False only when the tool says the action can be undone. */
  irreversible: boolean;
  /** Where the call acts, when the tool says: every field of the tool's `target`, each escaped. */
  target?: { service: string; address?: string; account?: string; environment?: string };
  /**
   * What the tool says the action affects, one entry per detail, in its
   * order: `label` the tool's words for the thing affected; `value` a value
   * to show on the label's line inside double quotes; `lines` a text of
   * several lines (a page, a diff), each escaped with a double quote kept,
   * to show one under another; `writtenByAgent` when the value or the lines
   * are the model's own words.
   */
  details: Array<{ label: string; value?: string; lines?: string[]; writtenByAgent?: boolean }>;
  /**
   * Every argument the call runs with, as JSON indented by two spaces: the
   * same value `JSON.parse` gives back (a placeholder is a JSON string), with
   * what would act on the text around it and a URL host's characters
   * outside ASCII written as JSON `\u` escapes.
   */
  arguments: string;
  /**
   * The standing approval the question offers ("approve this and the next
   * ones like it"), when it offers one: the tool and target every covered
   * call has, the value it has (`sameValue`, the tool's name for it and the
   * value), how many more calls it covers and when it ends (ISO 8601).
   */
  standing?: {
    tool: string;
    target?: { service: string; address?: string; account?: string; environment?: string };
    sameValue?: { label: string; value: string };
    maxCalls: number;
    until: string;
  };
  /**
   * The arguments and the target as data (not escaped), with the same
   * placeholders: for a channel that carries structured data beside the
   * text (an AG-UI interrupt's metadata, a form to change the arguments).
   */
  values: { arguments: unknown; target?: ToolTarget };
}

/** {@link ActionView.target}. */
export type ActionViewTarget = NonNullable<ActionView["target"]>;

/** One entry of {@link ActionView.details}. */
export type ActionViewDetail = ActionView["details"][number];

/** {@link ActionView.standing}. */
export type ActionViewStanding = NonNullable<ActionView["standing"]>;

/** The placeholder of a value equal to a secret the agent knows. */
export const registeredSecretPlaceholder = `${redactedMarker} registered secret`;

/** The placeholder of the value of a secret-named field (`token`, `password`, ...). */
export function secretFieldPlaceholder(field: string): string {
  return `${redactedMarker} secret field ${escapeUntrustedText(field)}`;
}

/**
 * What a view is built from: the parts of an `ApprovalAction` a person is
 * shown (the tool, the arguments, the description, the target, the
 * standing scope offered), and the view already built, if any.
 */
export interface ViewedAction {
  toolName: string;
  arguments: unknown;
  description: ActionDescription;
  target?: ToolTarget | undefined;
  standing?: StandingScope | undefined;
  view?: ActionView | undefined;
}

/** The view of an action, or where a secret the agent knows sits inside a value the person would judge. */
export type ActionViewOutcome =
  | {
      view: ActionView;
      /** The arguments and the description as an approver may read them: the view's placeholders, nothing else changed. */
      shown: { arguments: unknown; description: ActionDescription };
    }
  | { secretInside: string };

/**
 * Builds the one view of `action` that every channel renders, with
 * `knownSecrets` (the agent's registry, `SecretRegistry.values()`) as the
 * secrets to hide. A string equal to one of them, in any of the forms it
 * may be written in (raw, URL-encoded, JSON-escaped, `\u`-escaped,
 * HTML-escaped), and the value of a secret-named field show as a
 * placeholder; a string that holds one inside it gives `secretInside`, the
 * place where it sits, and no view: the gate then refuses to ask.
 */
export function buildActionView(
  action: ViewedAction,
  knownSecrets: readonly string[],
): ActionViewOutcome {
  const secrets = new Secrets(knownSecrets);
  try {
    const shownArguments = secrets.showTree(action.arguments ?? {}, "");
    const description = action.description;
    const summary = secrets.words(String(description?.summary ?? "").trim(), "the summary");
    const details = Array.isArray(description?.details) ? description.details : [];
    const shownDetails: ActionViewDetail[] = [];
    const describedDetails: NonNullable<ActionDescription["details"]> = [];
    details.forEach((detail, index) => {
      const where = `detail ${index + 1} of the description`;
      if (typeof detail !== "object" || detail === null) {
        const value = secrets.show(String(detail), where);
        shownDetails.push({ label: "", value: value.escaped });
        describedDetails.push(value.data);
        return;
      }
      const label = secrets.words(String(detail.label ?? ""), where);
      const agent = detail.writtenByAgent === true ? { writtenByAgent: true } : {};
      if (typeof detail.value === "string") {
        const value = secrets.show(detail.value, where);
        shownDetails.push({ label, value: value.escaped, ...agent });
        describedDetails.push({ label: detail.label, value: value.data, ...agent });
      } else if (typeof detail.text === "string") {
        const text = secrets.show(detail.text, where);
        const lines = text.placeholder
          ? [text.escaped]
          : text.data.split("\n").map(escapeShownLine);
        shownDetails.push({ label, lines, ...agent });
        describedDetails.push({ label: detail.label, text: text.data, ...agent });
      } else {
        shownDetails.push({ label, ...agent });
        describedDetails.push({ label: detail.label, ...agent });
      }
    });
    const target = action.target ? secrets.target(action.target, "the target") : undefined;
    const { standing } = action;
    const view: ActionView = {
      tool: escapeShownText(action.toolName),
      summary,
      irreversible: description?.irreversible !== false,
      ...(target ? { target: target.escaped } : {}),
      details: shownDetails,
      arguments: renderJson(shownArguments, ""),
      ...(standing
        ? {
            standing: {
              tool: escapeShownText(standing.toolName),
              ...(standing.target
                ? { target: secrets.target(standing.target, "the standing scope's target").escaped }
                : {}),
              ...(standing.sameValue
                ? {
                    sameValue: {
                      label: secrets.words(standing.sameValue.label, "the standing scope"),
                      value: secrets.show(standing.sameValue.value, "the standing scope").escaped,
                    },
                  }
                : {}),
              maxCalls: standing.maxCalls,
              until: escapeShownText(standing.until),
            },
          }
        : {}),
      values: {
        arguments: plainData(shownArguments),
        ...(target ? { target: target.data } : {}),
      },
    };
    return {
      view,
      shown: {
        arguments: view.values.arguments,
        description: {
          summary: String(description?.summary ?? ""),
          ...(Array.isArray(description?.details) ? { details: describedDetails } : {}),
          irreversible: view.irreversible,
        },
      },
    };
  } catch (error) {
    if (error instanceof SecretInside) return { secretInside: error.where };
    throw error;
  }
}

/** A placeholder in a tree of shown values: written as a JSON string, never escaped as a value is. */
class Placeholder {
  constructor(readonly text: string) {}
}

class SecretInside extends Error {
  constructor(readonly where: string) {
    super(`a secret sits inside ${where}`);
  }
}

interface ShownString {
  /** The value as data: itself, or its placeholder. */
  data: string;
  /** The value as the view writes it. */
  escaped: string;
  placeholder: boolean;
}

/** The secrets to hide, in every form they may be written in. */
class Secrets {
  readonly #forms: string[];

  constructor(known: readonly string[]) {
    const forms = new Set<string>();
    for (const secret of known) {
      if (secret.length < 4) continue;
      forms.add(secret);
      forms.add(encodeURIComponent(secret));
      forms.add(JSON.stringify(secret).slice(1, -1));
      forms.add(jsonEscape(secret));
      forms.add(jsonEscape(secret).toUpperCase().replaceAll("\\U", "\\u"));
      forms.add(escapeHtml(secret));
    }
    this.#forms = [...forms];
  }

  /** A value: its placeholder when it is a secret; refused when a secret sits inside it. */
  show(value: string, where: string): ShownString {
    if (this.#forms.includes(value)) {
      return {
        data: registeredSecretPlaceholder,
        escaped: registeredSecretPlaceholder,
        placeholder: true,
      };
    }
    const escaped = escapeShownText(value);
    if (this.#inside(value) || this.#inside(escaped) || this.#inside(shownJsonString(value))) {
      throw new SecretInside(where);
    }
    return { data: value, escaped, placeholder: false };
  }

  /** The tool's own words (a summary, a label): no placeholder, since they are not a value. */
  words(text: string, where: string): string {
    const shown = this.show(text, where);
    if (shown.placeholder) throw new SecretInside(where);
    return shown.escaped;
  }

  target(target: ToolTarget, where: string): { escaped: ActionViewTarget; data: ToolTarget } {
    const escaped: Record<string, string> = {};
    const data: Record<string, string> = {};
    for (const field of ["service", "address", "account", "environment"] as const) {
      const value = target[field];
      if (typeof value !== "string") continue;
      const shown = this.show(value, `${where}'s ${field}`);
      escaped[field] = shown.escaped;
      data[field] = shown.data;
    }
    return {
      escaped: { service: "", ...escaped } as ActionViewTarget,
      data: { service: "", ...data } as ToolTarget,
    };
  }

  /** A tree of arguments, secrets as placeholders; `path` is where it sits (`callbacks[0].url`). */
  showTree(value: unknown, path: string): unknown {
    const where = path === "" ? "the arguments" : `the argument ${path}`;
    if (typeof value === "string") {
      const shown = this.show(value, where);
      return shown.placeholder ? new Placeholder(shown.data) : value;
    }
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      return value.map((item, index) => this.showTree(item, `${path}[${index}]`));
    }
    const result: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      const at = `${path === "" ? "" : `${path}.`}${escapeUntrustedText(key)}`;
      if (this.#forms.includes(key) || this.#inside(key)) {
        throw new SecretInside(`the name of the argument ${at}`);
      }
      const shown =
        isSecretKey(key) && inner !== undefined && inner !== null && inner !== ""
          ? new Placeholder(secretFieldPlaceholder(key))
          : this.showTree(inner, at);
      // defineProperty keeps a "__proto__" key a key instead of a prototype.
      Object.defineProperty(result, key, {
        value: shown,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return result;
  }

  #inside(text: string): boolean {
    return this.#forms.some((form) => text.includes(form));
  }
}

/** The tree as JSON, indented by two spaces as `JSON.stringify(value, null, 2)` would. */
function renderJson(value: unknown, indent: string): string {
  if (value instanceof Placeholder) return JSON.stringify(value.text);
  if (typeof value === "string") return shownJsonString(value);
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items = value.map((item) => `${inner}${renderJson(item, inner)}`);
    return `[\n${items.join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  const items = entries.map(
    ([key, item]) => `${inner}${shownJsonString(key)}: ${renderJson(item, inner)}`,
  );
  return `{\n${items.join(",\n")}\n${indent}}`;
}

/** The tree as plain data: each placeholder as its text. */
function plainData(value: unknown): unknown {
  if (value instanceof Placeholder) return value.text;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(plainData);
  const result: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    Object.defineProperty(result, key, {
      value: plainData(inner),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

/**
 * The view of `action`: the one the gate built, or, for an action built by
 * hand, one built now with no secret but those of secret-named fields
 * hidden (a secret inside a value is then hidden whole).
 */
export function viewOfAction(action: ViewedAction): ActionView {
  if (action.view) return action.view;
  const built = buildActionView(action, []);
  if ("view" in built) return built.view;
  // Unreachable with no secrets given; kept so a view always comes back.
  throw new Error(`cannot show this action: a secret sits inside ${built.secretInside}`);
}
