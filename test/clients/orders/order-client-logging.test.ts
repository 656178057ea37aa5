import nock from "nock";
import { describe, expect, it } from "vitest";
import {
  captureLogs,
  makeClient,
  newToken,
  origin,
  prefix,
  rejection,
  token,
  useNock,
  uuids,
} from "./order-test-setup.js";

useNock();

const oldPhrase = "old correct horse battery";
const newPhrase = "new purple staple galaxy";
const callbackToken = "cb-verify-7f3a9e";

describe("order client logging", () => {
  it("never writes a token or a phrase to logs or error messages", async () => {
    const { logger, text } = captureLogs();
    const client = makeClient({ logger });
    const messages: string[] = [];

    nock(origin)
      .get(`${prefix}/orders`)
      .reply(429, `token ${token} is rate limited`, { "retry-after": "0" })
      .get(`${prefix}/orders`)
      .reply(401, { error: { code: "auth", message: `bad token ${token}` } });
    messages.push((await rejection(client.listOrders())).message);

    nock(origin)
      .post(`${prefix}/secrets`)
      .reply(429, `phrase ${newPhrase} busy`, { "retry-after": "0" })
      .post(`${prefix}/secrets`)
      .reply(200, { encrypted_token: newToken })
      .get(`${prefix}/callback_holds`)
      .reply(401, `token ${newToken} rejected`);
    messages.push(
      (
        await rejection(
          client.rotateToken({ newSecretPhrase: newPhrase, oldSecretPhrase: oldPhrase }),
        )
      ).message,
    );

    nock(origin).delete(`${prefix}/secrets`).reply(500, `cannot delete ${oldPhrase}`);
    messages.push((await rejection(client.deleteSecretPhrase(oldPhrase))).message);

    nock(origin)
      .post(`${prefix}/callbacks`)
      .reply(400, { error: { code: "dup", message: `token ${callbackToken} reused` } });
    messages.push(
      (
        await rejection(
          client.createCallbacks([
            {
              url: "https://hooks.example.com/a",
              message_type: "orderEvent",
              token: callbackToken,
            },
          ]),
        )
      ).message,
    );

    nock(origin).delete(`${prefix}/callbacks`).reply(503, `token ${token} overloaded`);
    const [deleted] = await client.deleteCallbacks([uuids[0]!]);
    messages.push(deleted?.error_message ?? "");

    const logs = text();
    expect(logs).toContain('"environment":"sandbox"');
    expect(logs).toContain("request failed, retrying");
    expect(logs).toContain("token rotation failed");
    expect(logs).toContain("bulk write batch failed");
    for (const secret of [token, newToken, oldPhrase, newPhrase, callbackToken]) {
      expect(logs).not.toContain(secret);
      for (const message of messages) expect(message).not.toContain(secret);
    }
    expect(messages.every((message) => message.length > 0)).toBe(true);
  });
});
