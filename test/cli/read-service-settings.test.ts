import { describe, expect, it } from "vitest";
import { CommandError } from "../../src/cli/command-error.js";
import { readServiceSettings } from "../../src/cli/read-service-settings.js";

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
});
