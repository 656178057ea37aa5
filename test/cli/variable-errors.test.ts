import { describe, expect, it } from "vitest";
import { runSwitchyard } from "./spawn-switchyard.js";

/**
 * A newcomer's mistake in a `SWITCHYARD_*` variable is reported as one line
 * naming that variable (never its secret value), not as what a library
 * function or a socket says about it.
 */
describe("an environment variable set wrong is named in the error", () => {
  it("SWITCHYARD_DATABASE_URL pointing at no database", async () => {
    const { code, stderr } = await runSwitchyard(["runs"], {
      SWITCHYARD_DATABASE_URL: "postgres://someone:hunter2-password@127.0.0.1:1/app",
    });
    expect(stderr).toMatch(
      /^switchyard: SWITCHYARD_DATABASE_URL postgres:\/\/127\.0\.0\.1:1\/app: Could not prepare the run store's tables .*ECONNREFUSED/m,
    );
    expect(stderr).not.toContain("hunter2-password");
    expect(code).toBe(1);
  }, 60_000); // the store retries the connection for about 17 s first

  it("SWITCHYARD_DATABASE_URL and SWITCHYARD_DATABASE_SCHEMA that are not a URL and a schema name", async () => {
    const { code, stderr } = await runSwitchyard(["runs"], {
      SWITCHYARD_DATABASE_URL: "localhost:5432/app",
      SWITCHYARD_DATABASE_SCHEMA: "Runs-Here",
    });
    expect(stderr).toMatch(/^switchyard: SWITCHYARD_DATABASE_URL must be a postgres:\/\/ URL/m);
    expect(stderr).toMatch(/^switchyard: SWITCHYARD_DATABASE_SCHEMA "Runs-Here" is not valid/m);
    expect(stderr).not.toContain("[redacted]");
    expect(code).toBe(2);
  });

  it("a short SWITCHYARD_STATE_KEY, before anything starts", async () => {
    const { code, stdout, stderr } = await runSwitchyard(["run", "order-report"], {
      SWITCHYARD_STATE_KEY: "my-state-key",
    });
    expect(stderr).toBe(
      "switchyard: SWITCHYARD_STATE_KEY holds 12 characters; it needs at least 32, or it can be guessed: set it to 32 random bytes as hex (openssl rand -hex 32), the same in every process that shares the runs.\n",
    );
    expect(stdout).toBe("");
    expect(code).toBe(2);
  });

  it("a short SWITCHYARD_MCP_TOKEN, before the server starts", async () => {
    const { code, stdout, stderr } = await runSwitchyard(["mcp", "--http", "0"], {
      SWITCHYARD_MCP_TOKEN: "short-token",
    });
    expect(stderr).toBe(
      "switchyard: SWITCHYARD_MCP_TOKEN holds 11 characters; it needs at least 16, or it can be guessed: set it to random text (openssl rand -base64 32), or unset it to have one generated.\n",
    );
    expect(stdout).toBe("");
    expect(code).toBe(2);
  });

  it("a SWITCHYARD_ORDERS_URL that is not an address, even with a bad token beside it", async () => {
    const { code, stderr } = await runSwitchyard(["run", "order-report"], {
      SWITCHYARD_ORDERS_URL: "orders.example.com/acme/api/v1",
      SWITCHYARD_ORDERS_TOKEN: "not-a-jwt-token",
    });
    expect(stderr).toMatch(
      /^switchyard: SWITCHYARD_ORDERS_URL "orders\.example\.com\/acme\/api\/v1" is not a valid URL: give an absolute address/m,
    );
    expect(stderr).not.toContain("not-a-jwt-token");
    expect(code).toBe(2);
  });

  it("a SWITCHYARD_ORDERS_URL over plain http to another host", async () => {
    const { code, stderr } = await runSwitchyard(["run", "order-report"], {
      SWITCHYARD_ORDERS_URL: "http://orders.example.com/acme/api/v1/",
      SWITCHYARD_ORDERS_TOKEN: "not-a-jwt-token",
    });
    expect(stderr).toMatch(
      /^switchyard: SWITCHYARD_ORDERS_URL http:\/\/orders\.example\.com uses plain http: only https is allowed/m,
    );
    expect(code).toBe(2);
  });
});
