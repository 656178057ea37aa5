import { scanEndpoint } from "compatcanary";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReasonerSimulator } from "../../src/simulators/reasoner/reasoner-simulator-options.js";
import { startReasonerSimulator } from "../../src/simulators/reasoner/start-reasoner-simulator.js";

/**
 * compatcanary, an outside prober of OpenAI-compatible APIs, run against
 * the simulator as a client points it: the base URL in front of
 * /chat/completions, a model and the key.
 */
describe("compatcanary against the reasoner simulator", () => {
  let simulator: ReasonerSimulator;
  let baseUrl: string;
  beforeAll(async () => {
    simulator = await startReasonerSimulator();
    baseUrl = simulator.url.replace(/\/chat\/completions$/, "");
  });
  afterAll(() => simulator.close());

  it("passes every chat probe: models, chat, streaming, forced tool call, strict structured output", async () => {
    const report = await scanEndpoint({
      baseUrl,
      model: "oss-120b",
      apiKey: simulator.apiKey,
      profile: "chat",
    });
    expect(report.schemaVersion).toBe("compatcanary.report.v1");
    const outcomes = Object.fromEntries(
      report.results.map((result) => [result.id, `${result.status}: ${result.summary}`]),
    );
    expect(Object.keys(outcomes).sort()).toEqual([
      "chat.basic",
      "chat.streaming",
      "chat.structured_output",
      "chat.tool_call",
      "models.list",
    ]);
    for (const [id, outcome] of Object.entries(outcomes)) expect(outcome, id).toMatch(/^pass: /);
    expect(report.compatible).toBe(true);
    expect(report.score).toBe(100);
  });

  it("finds no Responses API, which the simulator does not serve: a 404 naming the chat path", async () => {
    const report = await scanEndpoint({
      baseUrl,
      model: "oss-120b",
      apiKey: simulator.apiKey,
      profile: "modern",
    });
    const responses = report.results.filter((result) => result.id.startsWith("responses."));
    expect(responses.map((result) => result.id).sort()).toEqual([
      "responses.basic",
      "responses.streaming",
    ]);
    for (const result of responses) {
      expect(result.status).toBe("fail");
      expect(result.error?.httpStatus).toBe(404);
      const body = JSON.parse(result.error?.responseBody ?? "{}") as {
        error?: { message?: string; type?: string; code?: string };
      };
      expect(body.error?.message).toContain("POST /v1/responses");
      expect(body.error?.message).toContain("POST /v1/chat/completions");
      expect(body.error?.type).toBe("invalid_request_error");
    }
  });
});
