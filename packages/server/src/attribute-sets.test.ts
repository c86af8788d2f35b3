import { describe, expect, it } from "vitest";
import { AttributeSets } from "./attribute-sets.js";

describe("AttributeSets", () => {
  it("makes a key's set once and hands the same frozen object back, and past its bound makes one per call", () => {
    const sets = new AttributeSets(2);
    let made = 0;
    const make = (method: string) => () => {
      made += 1;
      return { "mcp.method.name": method };
    };
    const first = sets.get("tasks/get", make("tasks/get"));
    expect(sets.get("tasks/get", make("tasks/get"))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    sets.get("tools/call", make("tools/call"));
    expect(made).toBe(2);
    // A third key is past the bound: made each time, never kept.
    const third = sets.get("tools/list", make("tools/list"));
    expect(sets.get("tools/list", make("tools/list"))).not.toBe(third);
    expect(third).toEqual({ "mcp.method.name": "tools/list" });
    expect(made).toBe(4);
  });
});
