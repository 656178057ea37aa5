import nock from "nock";
import { describe, expect, it, vi } from "vitest";
import { TokenRotationError } from "../../../src/clients/orders/token-rotation-error.js";
import {
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  InternalServerError,
} from "../../../src/errors/index.js";
import { UnexpectedAnswerError } from "../../../src/errors/unexpected-answer-error.js";
import {
  makeClient,
  newToken,
  origin,
  prefix,
  rejection,
  token,
  useNock,
} from "./order-test-setup.js";

useNock();

const oldPhrase = "old correct horse battery";
const newPhrase = "new purple staple galaxy";

describe("createToken", () => {
  it("posts the phrase and returns the encrypted token", async () => {
    const scope = nock(origin)
      .post(`${prefix}/secrets`, { secret_phrase: newPhrase })
      .matchHeader("authorization", `Bearer ${token}`)
      .reply(200, { encrypted_token: newToken });
    await expect(makeClient().createToken(newPhrase)).resolves.toBe(newToken);
    expect(scope.isDone()).toBe(true);
  });

  it("refuses a short phrase before sending", async () => {
    const error = await rejection(makeClient().createToken("pw-9x"));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/at least 12/);
    expect(error.message).not.toContain("pw-9x");
  });

  it("reports an answer without a usable token", async () => {
    nock(origin).post(`${prefix}/secrets`).reply(200, { token_id: 4 });
    const missing = await rejection(makeClient().createToken(newPhrase));
    expect(missing).toBeInstanceOf(UnexpectedAnswerError);
    expect(missing.message).toMatch(/no encrypted_token string in an object with fields token_id/);
    nock(origin).post(`${prefix}/secrets`).reply(200, { encrypted_token: "opaque-value-123" });
    const notJwt = await rejection(makeClient().createToken(newPhrase));
    expect(notJwt.message).toMatch(/does not look like a JWT/);
    expect(notJwt.message).not.toContain("opaque-value-123");
  });

  it("keeps the phrase out of an error that echoes it", async () => {
    nock(origin)
      .post(`${prefix}/secrets`)
      .reply(400, { error: { code: "weak", message: `phrase "${newPhrase}" was used before` } });
    const error = await rejection(makeClient().createToken(newPhrase));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toContain("was used before");
    expect(error.message).not.toContain(newPhrase);
    expect((error as BadRequestError).bodyText).not.toContain(newPhrase);
  });
});

describe("deleteSecretPhrase", () => {
  it("sends DELETE /secrets with the phrase and returns the status", async () => {
    const scope = nock(origin)
      .delete(`${prefix}/secrets`, { secret_phrase: oldPhrase })
      .reply(200, { status: "success" });
    await expect(makeClient().deleteSecretPhrase(oldPhrase)).resolves.toEqual({
      status: "success",
    });
    expect(scope.isDone()).toBe(true);
  });

  it("is not retried on a 5xx answer", async () => {
    const scope = nock(origin).delete(`${prefix}/secrets`).times(2).reply(503, "busy");
    const error = await rejection(makeClient().deleteSecretPhrase(oldPhrase));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(scope.pendingMocks()).toHaveLength(1);
  });

  it("treats a 2xx answer with a failure status as an error", async () => {
    nock(origin)
      .delete(`${prefix}/secrets`)
      .reply(200, { status: "failure", error_message: `unknown phrase ${oldPhrase}` });
    const error = await rejection(makeClient().deleteSecretPhrase(oldPhrase));
    expect(error.message).toMatch(/reported status "failure": unknown phrase \[redacted\]/);
    expect(error.message).not.toContain(oldPhrase);
  });
});

describe("rotateToken", () => {
  it("creates, verifies with the new token, deploys, then deletes the old phrase", async () => {
    const events: string[] = [];
    nock(origin)
      .post(`${prefix}/secrets`, { secret_phrase: newPhrase })
      .matchHeader("authorization", `Bearer ${token}`)
      .reply(() => {
        events.push("create");
        return [200, { encrypted_token: newToken }];
      })
      .get(`${prefix}/callback_holds`)
      .matchHeader("authorization", `Bearer ${newToken}`)
      .reply(() => {
        events.push("verify");
        return [200, { holds: [] }];
      })
      .delete(`${prefix}/secrets`, { secret_phrase: oldPhrase })
      .matchHeader("authorization", `Bearer ${newToken}`)
      .reply(() => {
        events.push("delete");
        return [200, { status: "success" }];
      });
    const deploy = vi.fn(async (deployed: string) => {
      expect(deployed).toBe(newToken);
      events.push("deploy");
    });
    const result = await makeClient().rotateToken({
      newSecretPhrase: newPhrase,
      oldSecretPhrase: oldPhrase,
      deploy,
    });
    expect(result).toEqual({
      token: newToken,
      verifiedWith: "GET /callback_holds",
      oldPhraseDeleted: true,
    });
    expect(events).toEqual(["create", "verify", "deploy", "delete"]);
  });

  it("keeps the old phrase when the new token fails verification", async () => {
    nock(origin)
      .post(`${prefix}/secrets`)
      .reply(200, { encrypted_token: newToken })
      .get(`${prefix}/callback_holds`)
      .reply(401, { error: { code: "unauthorized", message: `token ${newToken} not valid yet` } });
    const deleteScope = nock(origin).delete(`${prefix}/secrets`).reply(200, { status: "success" });
    const deploy = vi.fn();
    const error = await rejection(
      makeClient().rotateToken({ newSecretPhrase: newPhrase, oldSecretPhrase: oldPhrase, deploy }),
    );
    expect(error).toBeInstanceOf(TokenRotationError);
    expect((error as TokenRotationError).step).toBe("verify");
    expect((error as TokenRotationError).oldPhraseDeleted).toBe(false);
    expect(error.cause).toBeInstanceOf(AuthenticationError);
    expect(error.message).toMatch(/old phrase was not deleted/);
    expect(error.message).toContain("[sandbox]");
    for (const secret of [newToken, token, newPhrase, oldPhrase]) {
      expect(error.message).not.toContain(secret);
    }
    expect(deploy).not.toHaveBeenCalled();
    expect(deleteScope.isDone()).toBe(false);
  });

  it("keeps the old phrase when deploy throws, without echoing the token", async () => {
    nock(origin)
      .post(`${prefix}/secrets`)
      .reply(200, { encrypted_token: newToken })
      .get(`${prefix}/callback_holds`)
      .reply(200, { holds: [] });
    const deleteScope = nock(origin).delete(`${prefix}/secrets`).reply(200, { status: "success" });
    const error = await rejection(
      makeClient().rotateToken({
        newSecretPhrase: newPhrase,
        oldSecretPhrase: oldPhrase,
        deploy: (deployed) => {
          throw new Error(`vault refused ${deployed}`);
        },
      }),
    );
    expect((error as TokenRotationError).step).toBe("deploy");
    expect(error.message).toContain("vault refused [redacted]");
    expect(error.message).not.toContain(newToken);
    expect((error.cause as Error).message).not.toContain(newToken);
    expect(deleteScope.isDone()).toBe(false);
  });

  it("reports a failed creation as the create step", async () => {
    nock(origin).post(`${prefix}/secrets`).reply(500, "boom");
    const error = await rejection(
      makeClient().rotateToken({ newSecretPhrase: newPhrase, oldSecretPhrase: oldPhrase }),
    );
    expect((error as TokenRotationError).step).toBe("create");
    expect(error.message).toMatch(/nothing changed/);
  });

  it("returns oldPhraseDeleted false when only the deletion fails", async () => {
    nock(origin)
      .post(`${prefix}/secrets`)
      .reply(200, { encrypted_token: newToken })
      .get(`${prefix}/callback_holds`)
      .reply(200, { holds: ["orderEvent"] })
      .delete(`${prefix}/secrets`)
      .reply(500, { error: { code: "E", message: `could not delete ${oldPhrase}` } });
    const result = await makeClient().rotateToken({
      newSecretPhrase: newPhrase,
      oldSecretPhrase: oldPhrase,
    });
    expect(result.token).toBe(newToken);
    expect(result.oldPhraseDeleted).toBe(false);
    expect(result.oldPhraseError).toBeInstanceOf(InternalServerError);
    expect(result.oldPhraseError?.message).not.toContain(oldPhrase);
  });

  it("refuses a reused or short new phrase before sending anything", async () => {
    const error = await rejection(
      makeClient().rotateToken({ newSecretPhrase: oldPhrase, oldSecretPhrase: oldPhrase }),
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/must differ/);
    await expect(
      makeClient().rotateToken({ newSecretPhrase: "tiny", oldSecretPhrase: oldPhrase }),
    ).rejects.toThrow(/newSecretPhrase is too short/);
  });
});
