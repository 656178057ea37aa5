import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import { z as z3 } from "zod/v3";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { silentLogger } from "../../src/internal/logger.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { Tool } from "../../src/tools/tool.js";
import { isZod3Schema, isZod4Schema } from "../../src/tools/zod-schema.js";

const context = {
  signal: new AbortController().signal,
  logger: silentLogger(),
  toolCallId: "call_1",
};

function configurationProblems(define: () => unknown): readonly string[] {
  try {
    define();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as ConfigurationError).problems;
  }
  throw new Error("expected a ConfigurationError");
}

describe("defineTool with a zod 4 schema", () => {
  const listOrders = defineTool({
    name: "list_orders",
    description: "Lists orders.",
    parameters: z.object({
      limit: z.number().int().min(1).max(100).default(10),
      status: z.enum(["open", "shipped"]).optional(),
      filter: z.object({ customer: z.string().min(2) }).optional(),
      ids: z.array(z.string()).optional(),
    }),
    execute: (args) => ({ received: args }),
  });

  it("sends a JSON Schema of the input, without $schema", () => {
    expect(listOrders.parameters.$schema).toBeUndefined();
    expect(listOrders.parameters.type).toBe("object");
    expect(Object.keys(listOrders.parameters.properties as object)).toEqual([
      "limit",
      "status",
      "filter",
      "ids",
    ]);
    // With a default, limit is optional for the model.
    expect(listOrders.parameters.required).toBeUndefined();
  });

  it("freezes the schema so no one changes what every request shares", () => {
    expect(Object.isFrozen(listOrders.parameters)).toBe(true);
    expect(Object.isFrozen(listOrders.parameters.properties)).toBe(true);
  });

  it("parses valid arguments, applying defaults", () => {
    expect(listOrders.checkArguments({ status: "open" })).toEqual({
      success: true,
      data: { limit: 10, status: "open" },
    });
  });

  it("turns issues into path: message lines", () => {
    const check = listOrders.checkArguments({
      limit: 500,
      filter: { customer: "x" },
      ids: ["a", 2],
    });
    expect(check).toEqual({
      success: false,
      issues: [
        "limit: Too big: expected number to be <=100",
        "filter.customer: Too small: expected string to have >=2 characters",
        "ids[1]: Invalid input: expected string, received number",
      ],
    });
  });

  it("names the root when the arguments are not an object", () => {
    const check = listOrders.checkArguments("five");
    expect(check.success).toBe(false);
    expect(!check.success && check.issues).toEqual([
      "(root): Invalid input: expected object, received string",
    ]);
  });

  it("executes with the context and wraps a plain return in a promise", async () => {
    const result = listOrders.execute({ limit: 3 }, context);
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toEqual({ received: { limit: 3 } });
    expect(listOrders.needsApproval).toBe(false);
  });

  it("accepts zod mini schemas", () => {
    const tool = defineTool({
      name: "mini",
      description: "Mini.",
      parameters: zm.object({ name: zm.string() }),
      execute: ({ name }) => name,
    });
    expect(tool.parameters.properties).toEqual({ name: { type: "string" } });
    expect(tool.checkArguments({ name: 1 }).success).toBe(false);
  });

  it("refuses a schema that is not an object", () => {
    const problems = configurationProblems(() =>
      defineTool({ name: "bad", description: "Bad.", parameters: z.string(), execute: () => null }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('Tool "bad": parameters must describe an object');
    expect(problems[0]).toContain('type "string"');
  });

  it("refuses a schema JSON cannot carry, naming the tool", () => {
    const problems = configurationProblems(() =>
      defineTool({
        name: "dated",
        description: "Dated.",
        parameters: z.object({ when: z.date() }),
        execute: () => null,
      }),
    );
    expect(problems[0]).toMatch(/^Tool "dated": parameters cannot be expressed as JSON Schema/);
  });
});

describe("defineTool with a zod 3 schema", () => {
  // zod 4's package ships the zod 3 API under "zod/v3": real zod 3 schemas, no stand-in.
  const schema = z3.object({ name: z3.string().max(3), count: z3.number().int().optional() });
  const tool = defineTool({
    name: "zod3",
    description: "Zod 3.",
    parameters: schema,
    execute: (args) => args.name,
  });

  it("is detected as zod 3, while a zod 4 schema (which also has _def) is not", () => {
    expect(isZod3Schema(schema)).toBe(true);
    expect(isZod4Schema(schema)).toBe(false);
    const zod4 = z.object({});
    expect("_def" in zod4).toBe(true);
    expect(isZod4Schema(zod4)).toBe(true);
    expect(isZod3Schema(zod4)).toBe(false);
  });

  it("converts with zod-to-json-schema and strips $schema", () => {
    expect(tool.parameters).toEqual({
      type: "object",
      properties: { name: { type: "string", maxLength: 3 }, count: { type: "integer" } },
      required: ["name"],
      additionalProperties: false,
    });
  });

  it("checks with the schema's own safeParse", () => {
    expect(tool.checkArguments({ name: "abc" })).toEqual({ success: true, data: { name: "abc" } });
    expect(tool.checkArguments({ name: "abcd" })).toEqual({
      success: false,
      issues: ["name: String must contain at most 3 character(s)"],
    });
  });
});

describe("defineTool with a JSON Schema object", () => {
  const source = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      id: { type: "string", pattern: "^[0-9a-f-]{36}$" },
      limit: { type: "integer", maximum: 100 },
    },
    required: ["id"],
    additionalProperties: false,
  };
  const tool = defineTool<{ id: string; limit?: number }>({
    name: "get_order",
    description: "Gets one order.",
    parameters: source,
    execute: ({ id }) => id,
  });

  it("keeps a frozen copy without $schema; the caller's object is untouched", () => {
    expect(tool.parameters.$schema).toBeUndefined();
    expect(source.$schema).toBeDefined();
    expect(tool.parameters).not.toBe(source);
    expect(Object.isFrozen(tool.parameters)).toBe(true);
  });

  it("validates arguments with the JSON Schema validator", () => {
    const id = "0b7c3a52-6a4e-4a55-9a55-2f2d3c4b5a61";
    expect(tool.checkArguments({ id })).toEqual({ success: true, data: { id } });
    expect(tool.checkArguments({ limit: 101, extra: true })).toEqual({
      success: false,
      issues: [
        "(root): must have required property 'id'",
        '(root): must NOT have additional properties: "extra" (allowed: id, limit)',
        "limit: must be <= 100",
      ],
    });
  });

  it("refuses a schema that is not an object, and an invalid pattern", () => {
    expect(
      configurationProblems(() =>
        defineTool({
          name: "list",
          description: "List.",
          parameters: { type: "array" },
          execute: () => [],
        }),
      )[0],
    ).toContain('type "array"');
    expect(
      configurationProblems(() =>
        defineTool({
          name: "pattern",
          description: "Pattern.",
          parameters: {
            type: "object",
            properties: { code: { type: "string", pattern: "([a-z" } },
          },
          execute: () => null,
        }),
      )[0],
    ).toMatch(/^Tool "pattern": the schema cannot be checked.*Invalid regular expression/);
  });
});

describe("defineTool types", () => {
  it("infers arguments from the schema, the result from execute and the name as a literal", () => {
    const fromZod4 = defineTool({
      name: "typed",
      description: "Typed.",
      parameters: z.object({ id: z.string(), limit: z.number().default(5) }),
      execute: async ({ id, limit }) => ({ id, count: limit }),
    });
    expectTypeOf(fromZod4).toEqualTypeOf<
      Tool<{ id: string; limit: number }, { id: string; count: number }, "typed">
    >();
    const fromZod3 = defineTool({
      name: "typed3",
      description: "Typed.",
      parameters: z3.object({ flag: z3.boolean() }),
      execute: ({ flag }) => !flag,
    });
    expectTypeOf(fromZod3).toEqualTypeOf<Tool<{ flag: boolean }, boolean, "typed3">>();
    const fromJsonSchema = defineTool({
      name: "plain",
      description: "Plain.",
      parameters: { type: "object", properties: {} },
      execute: () => "done",
    });
    expectTypeOf(fromJsonSchema.name).toEqualTypeOf<"plain">();
  });
});

describe("tool names and definition problems", () => {
  const make = (name: string) => () =>
    defineTool({
      name,
      description: "Does it.",
      parameters: { type: "object" },
      execute: () => null,
    });

  it.each(["", "has space", "dot.name", "a".repeat(65), "ünïcode"])(
    "refuses the name %j",
    (name) => {
      const problems = configurationProblems(make(name));
      expect(problems[0]).toContain("use 1 to 64 letters, digits");
    },
  );

  it.each(["a", "list_orders", "cancel-orders", "A1", "a".repeat(64)])(
    "accepts the name %j",
    (name) => {
      expect(make(name)().name).toBe(name);
    },
  );

  it("lists every problem at once", () => {
    const problems = configurationProblems(() =>
      defineTool({
        name: "bad name",
        description: "",
        parameters: 42 as unknown as { type: "object" },
        execute: undefined as unknown as () => null,
        needsApproval: "yes" as unknown as boolean,
        destructive: "very" as unknown as boolean,
      }),
    );
    expect(problems).toHaveLength(6);
    expect(problems.join("\n")).toMatch(/destructive must be true or false when given/);
    expect(problems.join("\n")).toMatch(/bad name/);
    expect(problems.join("\n")).toMatch(/description must be a non-empty string/);
    expect(problems.join("\n")).toMatch(/execute must be a function/);
    expect(problems.join("\n")).toMatch(/needsApproval must be a boolean or a function/);
    expect(problems.join("\n")).toMatch(
      /parameters must be a zod schema or a JSON Schema object; got number/,
    );
  });
});
