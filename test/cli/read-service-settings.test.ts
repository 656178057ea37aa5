import { describe, expect, it } from "vitest";
import { CommandError } from "../../src/cli/command-error.js";
import { readServiceSettings } from "../../src/cli/read-service-settings.js";
import { runCli } from "../../src/cli/run-cli.js";
import { createTestIo } from "./cli-test-io.js";

function problemsOf(env: Record<string, string>): string[] {
  try {
    readServiceSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(CommandError);
    expect((error as CommandError).exitCode).toBe(2);
    return (error as Error).message.split("\n");
  }
  throw new Error("expected a usage error");
}

describe("readServiceSettings", () => {
  it("uses every simulator when nothing is set, and treats empty values as unset", () => {
    expect(readServiceSettings({ SWITCHYARD_ORDERS_URL: "", SWITCHYARD_MODEL: " " })).toEqual({
      reasoner: undefined,
      orders: undefined,
      docs: undefined,
      messaging: undefined,
      model: undefined,
      notes: [],
    });
  });

  it("reads any mix of real and simulated services", () => {
    const settings = readServiceSettings({
      SWITCHYARD_REASONER_URL: "https://reasoner.example.com/v1/chat/completions",
      SWITCHYARD_REASONER_API_KEY: "sk-live",
      SWITCHYARD_MODEL: "vendorA/r1",
      SWITCHYARD_MESSAGING_URL: "https://messaging.example.com",
      SWITCHYARD_MESSAGING_TOKEN: "msg-token",
      SWITCHYARD_APPROVER_LINK: "sl_8f2c",
    });

    expect(settings).toEqual({
      reasoner: { url: "https://reasoner.example.com/v1/chat/completions", apiKey: "sk-live" },
      orders: undefined,
      docs: undefined,
      messaging: {
        url: "https://messaging.example.com",
        token: "msg-token",
        approverLinkId: "sl_8f2c",
      },
      model: "vendorA/r1",
      notes: [],
    });
  });

  it("refuses an address without what must come with it, naming every missing variable", () => {
    let error: unknown;
    try {
      readServiceSettings({
        SWITCHYARD_REASONER_URL: "https://reasoner.example.com",
        SWITCHYARD_MESSAGING_URL: "https://messaging.example.com",
      });
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(CommandError);
    expect((error as CommandError).exitCode).toBe(2);
    expect((error as Error).message.split("\n")).toEqual([
      "SWITCHYARD_REASONER_URL is set but SWITCHYARD_REASONER_API_KEY is not: set it too, or unset SWITCHYARD_REASONER_URL to use the reasoner simulator.",
      "SWITCHYARD_MESSAGING_URL is set but SWITCHYARD_MESSAGING_TOKEN and SWITCHYARD_APPROVER_LINK are not: set them too, or unset SWITCHYARD_MESSAGING_URL to use the messaging simulator.",
    ]);
  });

  it("notes a token without its address, and uses the simulator", () => {
    const settings = readServiceSettings({ SWITCHYARD_DOCS_TOKEN: "docs-token" });

    expect(settings.docs).toBeUndefined();
    expect(settings.notes).toEqual([
      "SWITCHYARD_DOCS_TOKEN is set but SWITCHYARD_DOCS_URL is not, so the docs simulator is used.",
    ]);
  });

  it("names the variable and the fix for a messaging URL ending in /v1", () => {
    expect(
      problemsOf({
        SWITCHYARD_MESSAGING_URL: "https://messaging.example.com/v1/",
        SWITCHYARD_MESSAGING_TOKEN: "msg-token",
        SWITCHYARD_APPROVER_LINK: "sl_8f2c",
      }),
    ).toEqual([
      "SWITCHYARD_MESSAGING_URL https://messaging.example.com/v1/ ends in /v1, but it is the base address: every route adds /v1 itself. Set it without /v1: https://messaging.example.com",
    ]);
  });

  it("names the variable and the fix for an orders URL without /{account_slug}/api/v1/", () => {
    const orders = (url: string) =>
      problemsOf({ SWITCHYARD_ORDERS_URL: url, SWITCHYARD_ORDERS_TOKEN: "eyJ.a.b" })[0];
    expect(orders("https://orders.example.com")).toBe(
      "SWITCHYARD_ORDERS_URL https://orders.example.com/ has no /{account_slug}/api/v1/ path: set it to https://{host}/{account_slug}/api/v1/, here https://orders.example.com/{account_slug}/api/v1/",
    );
    expect(orders("https://orders.example.com/acme")).toMatch(
      /here https:\/\/orders\.example\.com\/acme\/api\/v1\/$/,
    );
    expect(orders("https://orders.example.com/acme/api/v2")).toMatch(
      /here https:\/\/orders\.example\.com\/acme\/api\/v1\/$/,
    );
    expect(orders("https://user:secret@orders.example.com/api/v1")).not.toContain("secret");
    expect(
      readServiceSettings({
        SWITCHYARD_ORDERS_URL: "https://orders.example.com/acme/api/v1",
        SWITCHYARD_ORDERS_TOKEN: "eyJ.a.b",
      }).orders?.url,
    ).toBe("https://orders.example.com/acme/api/v1");
  });

  it("stops switchyard run with exit status 2 and the fix, before any request", async () => {
    const test = createTestIo({
      env: {
        SWITCHYARD_MESSAGING_URL: "http://127.0.0.1:9/v1",
        SWITCHYARD_MESSAGING_TOKEN: "msg-token",
        SWITCHYARD_APPROVER_LINK: "sl_8f2c",
      },
    });

    expect(await runCli(["run", "callback-cleanup"], test.io)).toBe(2);
    expect(test.stderr()).toBe(
      "switchyard: SWITCHYARD_MESSAGING_URL http://127.0.0.1:9/v1 ends in /v1, but it is the base address: every route adds /v1 itself. Set it without /v1: http://127.0.0.1:9\n",
    );
  });
});
