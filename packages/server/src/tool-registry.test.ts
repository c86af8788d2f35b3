import { describe, expect, it } from "vitest";
import { ConfigError, z } from "@jobtasks/core";
import { ToolRegistry } from "./tool-registry.js";
import { createScriptedAdapter } from "../../../test/support/scripted-adapter.js";

describe("ToolRegistry", () => {
  it("lists each tool with an object JSON Schema, without zod's implicit safe-integer bounds", () => {
    const scripted = createScriptedAdapter();
    scripted.adapter.tools[0]!.inputSchema = z.strictObject({
      count: z.number().int(),
      steps: z.number().int().min(1).max(50).default(3),
    });
    const [tool] = new ToolRegistry([{ name: "scripted", adapter: scripted.adapter }]).tools;
    expect(tool!.descriptor.inputSchema).toEqual({
      type: "object",
      properties: {
        count: { type: "integer" },
        steps: { type: "integer", minimum: 1, maximum: 50, default: 3, description: "From 1 to 50; default 3" },
      },
      required: ["count"],
      additionalProperties: false,
    });
  });

  it("writes each argument's limits and default into its description too (Codex drops the keywords)", () => {
    const scripted = createScriptedAdapter();
    scripted.adapter.tools[0]!.inputSchema = z.strictObject({
      steps: z.number().int().min(1).max(50).default(3).describe("How many steps to run."),
      ref: z.string().min(1).max(255).describe("Git ref (a branch or tag)"),
      vcpus: z.number().positive().max(16).optional(),
      mode: z.enum(["fast", "full"]).default("fast").describe("How thorough"),
      command: z.array(z.string().max(4096)).min(1).optional().describe("Arguments"),
    });
    const [tool] = new ToolRegistry([{ name: "scripted", adapter: scripted.adapter }]).tools;
    const properties = tool!.descriptor.inputSchema["properties"] as Record<string, Record<string, any>>;
    expect(properties["steps"]).toMatchObject({ minimum: 1, maximum: 50, default: 3 });
    expect(properties["steps"]!["description"]).toBe("How many steps to run. From 1 to 50; default 3.");
    expect(properties["ref"]!["description"]).toBe("Git ref (a branch or tag); 1 to 255 characters");
    expect(properties["vcpus"]!["description"]).toBe("At most 16; greater than 0");
    expect(properties["mode"]!["description"]).toBe('How thorough; default "fast"');
    expect(properties["command"]!["description"]).toBe("Arguments; at least 1 item");
    expect(properties["command"]!["items"]["description"]).toBe("At most 4096 characters");
  });

  it("spells nullable fields as anyOf and free-form objects as additionalProperties: true, leaving data alone", () => {
    const scripted = createScriptedAdapter();
    scripted.adapter.tools[0]!.inputSchema = z.strictObject({
      branch: z.string().nullable(),
      extra: z.looseObject({ name: z.string() }).optional(),
      shape: z.record(z.string(), z.unknown()).default({ type: ["kept", "as", "data"] }),
    });
    const [tool] = new ToolRegistry([{ name: "scripted", adapter: scripted.adapter }]).tools;
    const properties = tool!.descriptor.inputSchema["properties"] as Record<string, Record<string, unknown>>;
    expect(properties["branch"]).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] });
    expect(properties["extra"]).toMatchObject({ type: "object", additionalProperties: true });
    expect(properties["shape"]).toMatchObject({
      type: "object",
      additionalProperties: true,
      default: { type: ["kept", "as", "data"] },
    });
  });

  it("keeps the $schema marker, and the 2020-12 keywords, of a tool whose schema names its dialect", () => {
    const scripted = createScriptedAdapter();
    const dialect = "https://json-schema.org/draft/2020-12/schema";
    const address = z.object({ city: z.string().optional() }).meta({ id: "address", $anchor: "addressDef" });
    scripted.adapter.tools[0]!.inputSchema = z
      .strictObject({ address: address.optional(), phone: z.string().optional() })
      .meta({ $schema: dialect, if: { required: ["address"] }, then: { required: ["phone"] }, else: {} });
    const [tool] = new ToolRegistry([{ name: "scripted", adapter: scripted.adapter }]).tools;
    expect(tool!.descriptor.inputSchema).toMatchObject({
      $schema: dialect,
      type: "object",
      properties: { address: { $ref: "#/$defs/address" } },
      $defs: { address: { $anchor: "addressDef" } },
      if: { required: ["address"] },
      then: { required: ["phone"] },
      additionalProperties: false,
    });
  });

  it("refuses two adapters offering the same tool name, and two instances with one name", () => {
    const first = createScriptedAdapter().adapter;
    const second = createScriptedAdapter().adapter;
    expect(
      () =>
        new ToolRegistry([
          { name: "a", adapter: first },
          { name: "b", adapter: second },
        ]),
    ).toThrow(/adapters\[1\].*clashes/);
    expect(
      () =>
        new ToolRegistry([
          { name: "a", adapter: first },
          { name: "a", adapter: createScriptedAdapter({ toolName: "other" }).adapter },
        ]),
    ).toThrow(ConfigError);
  });
});
