import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "@jobtasks/core";
import { ToolRegistry } from "./tool-registry.js";
import { createScriptedAdapter } from "../../../test/support/scripted-adapter.js";

describe("ToolRegistry", () => {
  it("lists each tool with an object JSON Schema, without zod's implicit safe-integer bounds", () => {
    const scripted = createScriptedAdapter();
    scripted.adapter.tools[0]!.inputSchema = z.strictObject({ count: z.number().int(), steps: z.number().int().min(1).max(50).default(3) });
    const [tool] = new ToolRegistry([{ name: "scripted", adapter: scripted.adapter }]).tools;
    expect(tool!.descriptor.inputSchema).toEqual({
      type: "object",
      properties: { count: { type: "integer" }, steps: { type: "integer", minimum: 1, maximum: 50, default: 3 } },
      required: ["count"],
      additionalProperties: false,
    });
  });

  it("refuses two adapters offering the same tool name, and two instances with one name", () => {
    const first = createScriptedAdapter().adapter;
    const second = createScriptedAdapter().adapter;
    expect(() => new ToolRegistry([{ name: "a", adapter: first }, { name: "b", adapter: second }])).toThrow(/adapters\[1\].*clashes/);
    expect(() => new ToolRegistry([{ name: "a", adapter: first }, { name: "a", adapter: createScriptedAdapter({ toolName: "other" }).adapter }])).toThrow(ConfigError);
  });
});
