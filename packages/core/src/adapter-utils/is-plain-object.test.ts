import { describe, expect, it } from "vitest";
import { isPlainObject } from "./is-plain-object.js";

describe("isPlainObject", () => {
  it("holds for a parsed JSON object, empty or not", () => {
    expect(isPlainObject(JSON.parse('{"status": "running"}'))).toBe(true);
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
  });

  it("does not hold for null, an array or a scalar", () => {
    for (const value of [null, undefined, [], [{}], "{}", 0, true]) expect(isPlainObject(value)).toBe(false);
  });
});
