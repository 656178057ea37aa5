import {
  Agent,
  type KnownModel,
  type Model,
  ReasonerClient,
  type ReasonerClientOptions,
  type RunResult,
} from "switchyard-agents";
import { ScriptedModel } from "switchyard-agents/testing";
import { describe, expect, expectTypeOf, it } from "vitest";

// Checked by the type check (`npm run typecheck` covers the tests): a change
// that breaks one of these fails CI before any test runs.

describe("RunResult", () => {
  it("narrows on status: failed, aborted and max_steps have an Error, completed none", async () => {
    const result: RunResult = await new Agent({
      model: new ScriptedModel([{ error: new Error("service down") }]),
    }).run("go");

    // @ts-expect-error error may be undefined until the status is checked
    expect(() => result.error.message).not.toThrow();
    if (result.status === "failed") {
      expectTypeOf(result.error).toEqualTypeOf<Error>();
      expect(result.error.message).toBe("service down");
    }
    if (result.status === "completed" || result.status === "suspended") {
      expectTypeOf(result.error).toEqualTypeOf<undefined>();
    }
    if (result.status === "aborted" || result.status === "max_steps") {
      expectTypeOf(result.error).toEqualTypeOf<Error>();
    }
    expect(result.status).toBe("failed");
  });

  it("completed carries no error at run time either", async () => {
    const result = await new Agent({ model: new ScriptedModel([{ text: "hi" }]) }).run("go");
    expect(result.status).toBe("completed");
    expect("error" in result).toBe(false);
  });
});

describe("model names", () => {
  it("offer the six documented names and still accept any string", () => {
    expectTypeOf<KnownModel>().toEqualTypeOf<
      | "oss-120b"
      | "vendorA/r1"
      | "vendorA/v3"
      | "vendorB/235b"
      | "vendorB/2.5-max"
      | "vendorC/small-3-24b"
    >();
    expectTypeOf<"vendorA/r1">().toExtend<NonNullable<ReasonerClientOptions["model"]>>();
    expectTypeOf<"my-endpoint/other-model">().toExtend<
      NonNullable<ReasonerClientOptions["model"]>
    >();
  });
});

describe("the model protocol", () => {
  it("ReasonerClient and ScriptedModel are Models", () => {
    expectTypeOf<ReasonerClient>().toExtend<Model>();
    expectTypeOf<ScriptedModel>().toExtend<Model>();
    const client = new ReasonerClient({ url: "http://127.0.0.1:9/", apiKey: "key" });
    expect(typeof client.complete).toBe("function");
  });
});
