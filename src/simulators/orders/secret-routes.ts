import { describeJsonValue, isJsonObject } from "../http/json-values.js";
import type { Route } from "../http/route.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";
import type { OrdersService } from "./orders-state.js";
import type { TokenIssuer } from "./token-issuer.js";

/**
 * `POST /secrets` issues a token and works with or without an Authorization
 * header (the seed shows both); `DELETE /secrets` needs a valid token and
 * invalidates every token of the phrase.
 */
export function secretRoutes(service: OrdersService, tokens: TokenIssuer): Route[] {
  return [
    {
      method: "POST",
      pattern: "/secrets",
      public: true,
      handle: ({ body }) => ({
        body: { encrypted_token: tokens.issue(readSecretPhrase(body), service.now()) },
      }),
    },
    {
      method: "DELETE",
      pattern: "/secrets",
      handle: ({ body }) => {
        if (!tokens.revoke(readSecretPhrase(body))) {
          throw new SimulatorHttpError(
            404,
            "secret_phrase_not_found",
            "No token was issued for this secret_phrase (or it was deleted already); nothing to delete.",
          );
        }
        return { body: { status: "success" } };
      },
    },
  ];
}

function readSecretPhrase(body: unknown): string {
  if (!isJsonObject(body)) {
    throw new SimulatorHttpError(
      400,
      "invalid_body",
      `Body must be a JSON object {"secret_phrase": "..."}; got ${describeJsonValue(body)}.`,
    );
  }
  const phrase = body.secret_phrase;
  if (typeof phrase !== "string" || phrase.trim() === "") {
    throw new SimulatorHttpError(
      400,
      "invalid_secret_phrase",
      "secret_phrase is required and must be a non-empty string.",
    );
  }
  return phrase;
}
