import { ConfigurationError } from "../errors/configuration-error.js";
import type { AgUiAuthorizeContext, AgUiHandlerOptions } from "./ag-ui-handler-options.js";

/** A request refused before anything runs, and the words the client gets. */
export interface AccessRefusal {
  code: "unauthorized" | "not_thread_owner";
  message: string;
}

/**
 * The person behind the request, as `authorize` names them; `undefined`
 * when it names nobody or is not given. A name longer than 200 characters
 * throws a `ConfigurationError` (the request fails `internal_error`).
 */
export async function personOf(
  options: Pick<AgUiHandlerOptions, "authorize">,
  request: Request,
  context: AgUiAuthorizeContext,
): Promise<string | undefined> {
  if (options.authorize === undefined) return undefined;
  let name: string | undefined;
  try {
    name = await options.authorize(request, context);
  } catch {
    return undefined;
  }
  if (typeof name !== "string" || name.trim() === "") return undefined;
  const person = name.trim();
  // Cut, two long names could read as one owner: refused instead.
  if (person.length > longestName) {
    throw new ConfigurationError(
      `authorize named a person with ${person.length} characters; a name is at most ${longestName}: name people by a shorter id (a user id or an email address).`,
    );
  }
  return person;
}

/** The longest name `authorize` may give. */
const longestName = 200;

/** Why this person may not use this thread; `undefined` when they may. */
export async function accessRefusal(
  options: Pick<AgUiHandlerOptions, "authorize" | "threadAccess">,
  threadId: string,
  owner: string | undefined,
  person: string | undefined,
): Promise<AccessRefusal | undefined> {
  if (options.authorize === undefined) return undefined;
  if (person === undefined) {
    return {
      code: "unauthorized",
      message:
        "This server does not know who you are, so it cannot take your request: sign in and try again.",
    };
  }
  if (owner === undefined || owner === person) return undefined;
  const { threadAccess } = options;
  const allowed =
    threadAccess !== undefined &&
    (await Promise.resolve(threadAccess(person, { threadId, owner })).catch(() => false)) === true;
  return allowed
    ? undefined
    : {
        code: "not_thread_owner",
        message:
          "This conversation belongs to someone else: only the person who started it can continue it or answer its questions. Start a new conversation.",
      };
}
