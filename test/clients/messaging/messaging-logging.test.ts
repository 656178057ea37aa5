import nock from "nock";
import { afterEach, beforeAll, expect, it } from "vitest";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { captureLogger } from "../../helpers/capture-logger.js";

const base = "https://messaging.test";
const token = "msg-secret-token-0c9e4b";

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});

afterEach(() => {
  nock.cleanAll();
});

it("never writes the token to logs or error messages, even when the service echoes it", async () => {
  const { logger, text: captured } = captureLogger();
  const client = new MessagingClient({ baseUrl: base, token, logger, initialRetryDelayMs: 1 });
  const errorMessages: string[] = [];
  const collect = (error: unknown) => {
    errorMessages.push(String(error), JSON.stringify(error));
  };

  nock(base)
    .get("/v1/capabilities")
    .reply(200, { features: ["interactions"] });
  nock(base)
    .get("/v1/messages/m_1")
    .reply(401, { error: { message: `token ${token} is not valid` } });
  nock(base)
    .post("/v1/messages")
    .reply(503, `upstream rejected Bearer ${token}`)
    .post("/v1/messages")
    .reply(202, { message_id: "m_1", interaction_id: "i_1" });
  nock(base)
    .get("/v1/interactions/i_1")
    .times(9)
    .reply(500, { error: { message: `auth ${token} failed` } });

  await client.getCapabilities();
  await client.getMessage("m_1").catch(collect);
  await client.sendMessage({ subscriptionLinkId: "sl_1", kind: "notification", text: "hello" });
  const outcome = await client.waitForInteraction("i_1", {
    timeoutMs: 5_000,
    pollIntervalMs: 1,
    maxPollIntervalMs: 2,
  });
  if (outcome.status === "error") collect(outcome.error);

  expect(outcome.status).toBe("error");
  expect(errorMessages.length).toBeGreaterThanOrEqual(4);
  expect(errorMessages.join("\n")).toContain("is not valid");
  expect(captured()).toContain('"component":"messaging-client"');
  expect(captured()).toContain("request failed, retrying");
  expect(captured()).toContain("poll failed, will poll again");
  expect(captured()).toContain("[redacted]");
  expect(captured()).not.toContain(token);
  expect(errorMessages.join("\n")).not.toContain(token);
});
