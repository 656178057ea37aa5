import { readFile } from "node:fs/promises";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { missingMethods } from "../../internal/missing-methods.js";

/**
 * The channels a person answers on, each recognising them by its own
 * evidence: `messaging` by the subscription link id the answer came from
 * (the messaging service's inbox page answers as its link), `agUi` by the
 * principal `authorize` named, `mcp` by the MCP host's user, `terminal` by
 * the local user name of the process that asks.
 */
export const approverChannels = ["messaging", "agUi", "mcp", "terminal"] as const;

/** One of {@link approverChannels}. */
export type ApproverChannel = (typeof approverChannels)[number];

/**
 * Who answered, as the channel that asked recognised them: the channel and
 * its evidence (a subscription link id, an `authorize` principal, an MCP
 * host user, a local user name). Never a secret.
 */
export interface ApproverIdentity {
  channel: ApproverChannel;
  /** The channel's evidence: e.g. `sl_7f3a…`, `alice@example.com`, `alice`. */
  id: string;
}

/** Whether `value` is a channel identity `{ channel, id }` (plain strings, a known channel). */
export function isApproverIdentity(value: unknown): value is ApproverIdentity {
  const { channel, id } = (value ?? {}) as Record<string, unknown>;
  return (
    typeof value === "object" &&
    value !== null &&
    (approverChannels as readonly unknown[]).includes(channel) &&
    typeof id === "string" &&
    id !== ""
  );
}

/**
 * Who gave an answer: the identity it names (`answeredBy`), else the
 * messaging link it came on; `undefined` when neither says.
 */
export function answeringIdentity(
  answeredBy: ApproverIdentity | undefined,
  approverLink: string | undefined,
): ApproverIdentity | undefined {
  if (answeredBy !== undefined) return { channel: answeredBy.channel, id: answeredBy.id };
  return approverLink !== undefined && approverLink !== ""
    ? { channel: "messaging", id: approverLink }
    : undefined;
}

/**
 * A person who answered, as every decision record names them (audit
 * record, `onApprovalDecided`, the call's approval record): their directory
 * id and name, and the channel evidence that recognised them.
 */
export interface RecognisedApprover {
  /** Their id in the approver directory. */
  id: string;
  /** Their display name in the directory. */
  name: string;
  /** The channel their answer came on. */
  channel: ApproverChannel;
  /** What the channel recognised them by: a subscription link id, a principal, a host user, a local user. */
  evidence: string;
}

/** One person of an {@link ApproverDirectory}. */
export interface ApproverPerson {
  /** Stable id, named in every decision record (e.g. an employee id or an email address). */
  id: string;
  /** Display name, for people reading questions and records. */
  name: string;
  /** The roles the person holds, e.g. `["oncall", "finance"]`. */
  roles: readonly string[];
  /**
   * How each channel recognises the person: the evidence of each channel
   * that is theirs. A channel not named never recognises them.
   *
   * @example
   * { messaging: ["sl_alice_phone"], agUi: ["alice@example.com"], terminal: ["alice"] }
   */
  identities: Readonly<Partial<Record<ApproverChannel, readonly string[]>>>;
}

/**
 * Who may approve, and how each channel recognises them: the people, their
 * roles and their identities on each channel. Build one from a plain object
 * with {@link approverDirectory}, from a JSON file with
 * {@link loadApproverDirectory}, or write your own (your identity
 * provider's groups, say): `recognize` is all the gate needs to judge an
 * answer; `withRoles` lets a channel that reaches people itself (messaging)
 * ask the right ones.
 *
 * Every person your own directory gives is checked whole, by the rules
 * `approverDirectory` checks its people by: a non-empty `id` and `name` of
 * at most 200 characters, `roles` a list of role names, `identities` an
 * object of channel evidence lists (`{}` for none). Anything else fails
 * closed, with a message naming the method and the field: from `recognize`
 * judging an answer, the action is refused `approver_error`; from
 * `withRoles`, one malformed person makes the whole list an
 * `approver_error` (nobody is asked; a person dropped from the list would
 * change who is asked); from `person` or `recognize` resolving
 * `startedBy`, the run fails at its start with a `ConfigurationError`.
 * `undefined` (or `null`) is nobody.
 */
export interface ApproverDirectory {
  /** The person this channel evidence belongs to; `undefined` when nobody in the directory. */
  recognize(
    identity: ApproverIdentity,
  ): ApproverPerson | undefined | Promise<ApproverPerson | undefined>;
  /** The person with this directory id; `undefined` when none. */
  person(id: string): ApproverPerson | undefined | Promise<ApproverPerson | undefined>;
  /**
   * The people holding any of `roles` (every person when `roles` is empty),
   * in the directory's order. Optional: without it, channels that reach
   * people themselves ask whom their own options name.
   */
  withRoles?(
    roles: readonly string[],
  ): readonly ApproverPerson[] | Promise<readonly ApproverPerson[]>;
}

/** A person as written in code or in a directory file: `roles` and `identities` may be left out. */
export interface ApproverPersonEntry {
  id: string;
  name?: string | undefined;
  roles?: readonly string[] | undefined;
  identities?: Readonly<Partial<Record<ApproverChannel, readonly string[]>>> | undefined;
}

/** A directory as written in code or in a JSON file. */
export interface ApproverDirectoryEntries {
  people: readonly ApproverPersonEntry[];
}

/** The longest id, name, role or channel evidence a directory takes. */
const longestText = 200;

/**
 * A directory from a plain object, checked whole: every problem (a missing
 * id, an id used twice, one channel evidence given to two people, an
 * unknown channel) is named in one `ConfigurationError`.
 *
 * @example
 * const directory = approverDirectory({
 *   people: [
 *     { id: "alice", name: "Alice Ng", roles: ["oncall"], identities: { messaging: ["sl_alice"], agUi: ["alice@example.com"] } },
 *     { id: "bob", name: "Bob Roy", roles: ["oncall", "lead"], identities: { messaging: ["sl_bob"] } },
 *   ],
 * });
 */
export function approverDirectory(entries: ApproverDirectoryEntries): ApproverDirectory {
  const people = checkDirectoryEntries(entries, "approverDirectory");
  const byId = new Map(people.map((person) => [person.id, person]));
  const byEvidence = new Map<string, ApproverPerson>();
  for (const person of people) {
    for (const channel of approverChannels) {
      for (const evidence of person.identities[channel] ?? []) {
        byEvidence.set(evidenceKey({ channel, id: evidence }), person);
      }
    }
  }
  return {
    recognize: (identity) =>
      typeof identity?.id === "string" ? byEvidence.get(evidenceKey(identity)) : undefined,
    person: (id) => byId.get(id),
    withRoles: (roles) =>
      roles.length === 0
        ? people
        : people.filter((person) => person.roles.some((role) => roles.includes(role))),
  };
}

/**
 * A directory from a JSON file holding `{ "people": [...] }` as
 * {@link approverDirectory} takes it (the command line's
 * `--approver-directory`). A file that cannot be read or parsed, or whose
 * entries are wrong, throws a `ConfigurationError` naming the file.
 */
export async function loadApproverDirectory(path: string): Promise<ApproverDirectory> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new ConfigurationError(
      `the approver directory ${path} cannot be read (${code}): give the path of a JSON file holding { "people": [...] }`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(
      `the approver directory ${path} is not JSON (${(error as Error).message}): it must hold { "people": [{ "id": "alice", "name": "Alice", "roles": ["oncall"], "identities": { "terminal": ["alice"] } }] }`,
    );
  }
  try {
    return approverDirectory(parsed as ApproverDirectoryEntries);
  } catch (error) {
    if (error instanceof ConfigurationError) {
      throw new ConfigurationError(error.problems.map((problem) => `${path}: ${problem}`));
    }
    throw error;
  }
}

function evidenceKey(identity: ApproverIdentity): string {
  return `${identity.channel}\u0000${identity.id}`;
}

function checkDirectoryEntries(entries: unknown, at: string): ApproverPerson[] {
  const problems: string[] = [];
  const people: ApproverPerson[] = [];
  const list = (entries as { people?: unknown } | null)?.people;
  if (typeof entries !== "object" || entries === null || !Array.isArray(list)) {
    throw new ConfigurationError(
      `${at} needs { people: [{ id, name, roles, identities }] }: a list of the people who may approve`,
    );
  }
  const ids = new Set<string>();
  const owners = new Map<string, string>();
  list.forEach((entry: unknown, index) => {
    const where = `${at}.people[${index}]`;
    problems.push(...findPersonProblems(entry, where, { whole: false }));
    const { id, name, roles, identities } = (entry ?? {}) as ApproverPersonEntry;
    if (typeof entry !== "object" || entry === null || !isText(id)) return;
    if (ids.has(id))
      problems.push(`${where}.id "${id}" is used by another person; ids must be unique`);
    ids.add(id);
    const channels: Partial<Record<ApproverChannel, readonly string[]>> = {};
    for (const [channel, evidence] of channelEntries(identities)) {
      if (!isChannel(channel) || !isTextList(evidence)) continue;
      for (const value of evidence) {
        const key = evidenceKey({ channel, id: value });
        const owner = owners.get(key);
        if (owner !== undefined && owner !== id) {
          problems.push(
            `${where}.identities.${channel} "${value}" is also ${owner}'s: one channel identity recognises one person`,
          );
        }
        owners.set(key, id);
      }
      channels[channel] = Object.freeze([...evidence]);
    }
    people.push(
      Object.freeze({
        id,
        name: isText(name) ? name : id,
        roles: Object.freeze(Array.isArray(roles) ? roles.filter(isText) : []),
        identities: Object.freeze(channels),
      }),
    );
  });
  if (problems.length > 0) throw new ConfigurationError(problems);
  return people;
}

/**
 * What is wrong with a person by the directory's rules, each problem named
 * at `where`: an object with an id, and a name, roles and identities that
 * are right. `whole`: all of them must be there (what a directory gives);
 * otherwise a name, roles and identities may be left out (an entry).
 */
function findPersonProblems(
  entry: unknown,
  where: string,
  { whole }: { whole: boolean },
): string[] {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    return [`${where} must be an object { id, name, roles, identities }`];
  }
  const { id, name, roles, identities } = entry as Record<string, unknown>;
  const problems: string[] = [];
  if (!isText(id)) {
    problems.push(`${where}.id must be a non-empty string of at most ${longestText} characters`);
  }
  if ((whole || name !== undefined) && !isText(name)) {
    problems.push(`${where}.name must be a non-empty string of at most ${longestText} characters`);
  }
  if ((whole || roles !== undefined) && !isTextList(roles)) {
    problems.push(`${where}.roles must be a list of role names, e.g. ["oncall"]`);
  }
  if (!whole && identities === undefined) return problems;
  if (typeof identities !== "object" || identities === null || Array.isArray(identities)) {
    problems.push(
      `${where}.identities must be an object such as { messaging: ["sl_..."], agUi: ["alice@example.com"], mcp: ["alice"], terminal: ["alice"] }`,
    );
    return problems;
  }
  for (const [channel, evidence] of channelEntries(identities)) {
    if (!isChannel(channel)) {
      problems.push(
        `${where}.identities.${channel.slice(0, 40)} is not a channel; the channels are ${approverChannels.join(", ")}`,
      );
    } else if (!isTextList(evidence)) {
      problems.push(
        `${where}.identities.${channel} must be a list of strings (each at most ${longestText} characters)`,
      );
    }
  }
  return problems;
}

/** The channels and evidence lists of `identities`, when it is an object (none otherwise). */
function channelEntries(identities: unknown): [string, unknown][] {
  return typeof identities === "object" && identities !== null && !Array.isArray(identities)
    ? Object.entries(identities)
    : [];
}

function isChannel(value: string): value is ApproverChannel {
  return (approverChannels as readonly string[]).includes(value);
}

function isTextList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isText);
}

/**
 * What is wrong with what a directory's method returned as a person, by
 * the rules the directory's own people follow: a whole
 * {@link ApproverPerson} (an id and a name of at most 200 characters,
 * roles a list of role names, identities an object of channel evidence
 * lists). `undefined` when it is one; otherwise one sentence naming the
 * method (`method`, e.g. `recognize(identity)`) and each field that is
 * wrong (the first five), never a value (only an unknown channel's name,
 * cut to 40 characters), and how to fix it. What the
 * directory found nobody for (`undefined`) is not checked here.
 */
export function findDirectoryPersonProblem(value: unknown, method: string): string | undefined {
  const problems = findPersonProblems(value, `the approver directory's ${method}`, {
    whole: true,
  });
  if (problems.length === 0) return undefined;
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : "";
  return `${problems.slice(0, 5).join("; ")}${more} (a directory's recognize, person and withRoles must give whole people, { id, name, roles, identities } with identities {} when no channel recognises them, or undefined for nobody; approverDirectory({ people }) builds one that does)`;
}

/** Whether `value` is a directory text: non-empty, at most 200 characters. */
export function isText(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "" && value.length <= longestText;
}

/** `approverDirectory` must have `recognize` and `person` (and `withRoles`, when given, a function). */
export function checkApproverDirectory(directory: unknown, problems: string[]): void {
  if (directory === undefined) return;
  const missing = missingMethods(directory, ["recognize", "person"]);
  const withRoles = (directory as { withRoles?: unknown } | null)?.withRoles;
  if (missing.length > 0 || (withRoles !== undefined && typeof withRoles !== "function")) {
    problems.push(
      `approverDirectory must be an ApproverDirectory: recognize(identity) and person(id) functions (and withRoles(roles), when given, a function)${missing.length > 0 ? `; it lacks ${missing.map((method) => `${method}()`).join(", ")}` : ""}. Build one with approverDirectory({ people }) or loadApproverDirectory(path).`,
    );
  }
}
