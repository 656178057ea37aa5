import { ConfigurationError } from "../../errors/configuration-error.js";
import { redactText } from "../../internal/redact.js";
import { describeThrown } from "../describe-thrown.js";
import {
  type ApproverDirectory,
  type ApproverIdentity,
  type ApproverPerson,
  approverChannels,
  findDirectoryPersonProblem,
  isApproverIdentity,
  isText,
} from "./approver-directory.js";

/**
 * Who started a run, as the gate judges self-approval by: the person the
 * directory names (when it knows them), and the identity they started it
 * with (when `startedBy` was one). An answer from that person, or with that
 * very identity, is the starter's own.
 */
export interface RunStarter {
  /** The directory's person: by id, or recognised from the identity. */
  person?: ApproverPerson;
  /** The channel identity the run was started with, when `startedBy` was one. */
  identity?: ApproverIdentity;
}

/**
 * What is wrong with a `startedBy` value (`RunOptions.startedBy`, a saved
 * state's): `undefined` when it is a directory id or a channel identity.
 */
export function findStartedByProblem(value: unknown): string | undefined {
  if (typeof value === "string") {
    return isText(value)
      ? undefined
      : "must be a person's id in the approver directory (a non-empty string of at most 200 characters)";
  }
  return isApproverIdentity(value) && isText(value.id)
    ? undefined
    : `must be a person's id in the approver directory, or a channel identity { channel: ${approverChannels.map((name) => `"${name}"`).join(" | ")}, id: "..." }`;
}

/**
 * The run's starter as the directory knows them. A directory id the
 * directory does not know is a ConfigurationError (the run fails at its
 * start); an identity it does not recognise stays that identity. Without a
 * directory or a `startedBy`, there is none to judge by.
 */
export async function resolveRunStarter(
  directory: ApproverDirectory | undefined,
  startedBy: string | ApproverIdentity | undefined,
): Promise<RunStarter | undefined> {
  if (directory === undefined || startedBy === undefined) return undefined;
  const lookUp = async (
    find: () => ApproverPerson | undefined | Promise<ApproverPerson | undefined>,
  ) => {
    try {
      return await find();
    } catch (error) {
      throw new ConfigurationError(
        `the approver directory failed to look up who started the run (${redactText(describeThrown(error))}); the run was not started`,
      );
    }
  };
  // What the directory gives is checked whole: a malformed person fails the run at its start.
  const checked = (person: ApproverPerson | undefined | null, method: string) => {
    if (person === undefined || person === null) return undefined;
    const problem = findDirectoryPersonProblem(person, method);
    if (problem !== undefined) {
      throw new ConfigurationError(
        `${problem}; the run was not started, as the directory cannot say who started it`,
      );
    }
    return person;
  };
  if (typeof startedBy === "string") {
    const person = checked(await lookUp(() => directory.person(startedBy)), "person(id)");
    if (!person) {
      throw new ConfigurationError(
        `startedBy "${startedBy}" is not a person's id in the approver directory; give the id of the person who starts the run (or their identity on a channel, { channel, id })`,
      );
    }
    return { person };
  }
  const person = checked(await lookUp(() => directory.recognize(startedBy)), "recognize(identity)");
  return {
    identity: { channel: startedBy.channel, id: startedBy.id },
    ...(person ? { person } : {}),
  };
}
