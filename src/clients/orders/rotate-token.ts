import { ConfigurationError } from "../../errors/configuration-error.js";
import type { Logger } from "../../internal/logger.js";
import { SecretRegistry, secretsOf } from "../../internal/redact.js";
import type { RequestOptions } from "../request-options.js";
import type { OrderEnvironment } from "./order-environment.js";
import type { OrderRoutes } from "./order-routes.js";
import { describeSecretPhraseProblem } from "./secret-phrase.js";
import { TokenRotationError, type TokenRotationStep } from "./token-rotation-error.js";

/**
 * What a rotation uses of an order client; `OrderClient` is one. Kept here
 * so this file does not import the client that calls it.
 */
export interface TokenRotationClient {
  readonly environment: OrderEnvironment;
  readonly routes: Readonly<OrderRoutes>;
  createToken(secretPhrase: string, options?: RequestOptions): Promise<string>;
  /** The same client bound to another token. */
  withToken(token: string): TokenRotationClient;
  listCallbackHolds(options?: RequestOptions): Promise<unknown>;
  deleteSecretPhrase(secretPhrase: string, options?: RequestOptions): Promise<unknown>;
}

/** What `OrderClient.rotateToken` needs. */
export interface RotateTokenRequest {
  /** Phrase of the new token: at least 12 non-blank characters, different from the old one. */
  newSecretPhrase: string;
  /** Phrase of the token being replaced; deleted last, which invalidates the old token. */
  oldSecretPhrase: string;
  /**
   * Stores the new token where the application reads it (a secret store, a
   * config file). Called after verification and before the old phrase is
   * deleted; if it throws, the old phrase is kept.
   */
  deploy?: (token: string) => void | Promise<void>;
}

/** Outcome of a rotation that got past verification (and deployment). */
export interface TokenRotationResult {
  /** The new bearer token. A secret: store it, never log it. */
  token: string;
  /** The harmless read that proved the new token works, e.g. `GET /callback_holds`. */
  verifiedWith: string;
  /** Whether the old phrase, and with it the old token, was deleted. */
  oldPhraseDeleted: boolean;
  /** Why deleting the old phrase failed, when it did (secrets scrubbed). */
  oldPhraseError?: Error;
}

/**
 * Runs the seed's rotation: create a token with the new phrase, verify it
 * with a read through a client bound to it, deploy it, and only then delete
 * the old phrase (with the new token). A failure before the deletion throws
 * `TokenRotationError` and keeps the old phrase, so the old token keeps working.
 */
export async function rotateToken(
  client: TokenRotationClient,
  logger: Logger,
  request: RotateTokenRequest,
  options?: RequestOptions,
): Promise<TokenRotationResult> {
  const { newSecretPhrase, oldSecretPhrase, deploy } = request ?? ({} as RotateTokenRequest);
  const problems = [
    describeSecretPhraseProblem(newSecretPhrase, "newSecretPhrase"),
    typeof oldSecretPhrase === "string" && oldSecretPhrase.trim() !== ""
      ? undefined
      : "oldSecretPhrase must be the non-empty phrase the current token was created with",
    newSecretPhrase === oldSecretPhrase && typeof newSecretPhrase === "string"
      ? "newSecretPhrase must differ from oldSecretPhrase: a rotation needs a new phrase"
      : undefined,
    deploy !== undefined && typeof deploy !== "function"
      ? "deploy must be a function (token) => void | Promise<void>"
      : undefined,
  ].filter((problem): problem is string => problem !== undefined);
  if (problems.length > 0) throw new ConfigurationError(problems);

  const secrets = new SecretRegistry()
    .add(newSecretPhrase, oldSecretPhrase)
    .include(secretsOf(client));
  const fail = (step: TokenRotationStep, message: string, cause: unknown): TokenRotationError => {
    const scrubbed = secrets.redactError(asError(cause));
    logger.warn({ step, error: scrubbed.message }, "token rotation failed");
    return new TokenRotationError(step, `${message}: ${scrubbed.message}`, {
      cause: scrubbed,
      environment: client.environment,
    });
  };

  let token: string;
  try {
    token = await client.createToken(newSecretPhrase, options);
  } catch (error) {
    throw fail("create", "could not create the new token; nothing changed", error);
  }
  secrets.add(token);
  logger.info({ step: "create" }, "token rotation: new token created");

  const route = client.routes.listCallbackHolds;
  const verifiedWith = `${route.method} ${route.path}`;
  let verified: TokenRotationClient;
  try {
    verified = client.withToken(token);
    await verified.listCallbackHolds(options);
  } catch (error) {
    throw fail(
      "verify",
      `the new token did not work for ${verifiedWith}, so the old phrase was not deleted and the old token still works; the new phrase now has a token, delete it with deleteSecretPhrase once you know why`,
      error,
    );
  }
  logger.info({ step: "verify", verifiedWith }, "token rotation: new token verified");

  if (deploy) {
    try {
      await deploy(token);
    } catch (error) {
      throw fail(
        "deploy",
        "deploy(newToken) threw, so the old phrase was not deleted and the old token still works; the new token is valid, deploy it and delete the old phrase with deleteSecretPhrase",
        error,
      );
    }
    logger.info({ step: "deploy" }, "token rotation: new token deployed");
  }

  try {
    await verified.deleteSecretPhrase(oldSecretPhrase, options);
  } catch (error) {
    const scrubbed = secrets.redactError(asError(error));
    logger.warn(
      { step: "delete-old-phrase", error: scrubbed.message },
      "token rotation: the old phrase could not be deleted, so the old token still works",
    );
    return { token, verifiedWith, oldPhraseDeleted: false, oldPhraseError: scrubbed };
  }
  logger.info({ step: "delete-old-phrase" }, "token rotation: old phrase deleted");
  return { token, verifiedWith, oldPhraseDeleted: true };
}

function asError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  let text: string;
  try {
    text = typeof thrown === "string" ? thrown : (JSON.stringify(thrown) ?? String(thrown));
  } catch {
    text = String(thrown);
  }
  return new Error(text);
}
