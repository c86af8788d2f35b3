import { describe, expect, it } from "vitest";
import { boundedCache } from "./bounded-cache.js";

describe("boundedCache", () => {
  it("keeps at most maxEntries, dropping the least recently used first", () => {
    const cache = boundedCache<string, number>(3);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("c", 3);
    expect(cache.get("a")).toBe(1); // a is now the most recently used
    cache.set("d", 4);
    expect(cache.size).toBe(3);
    expect(cache.has("b")).toBe(false);
    expect([...cache.keys()].sort()).toEqual(["a", "c", "d"]);
  });

  it("replacing a key does not count twice against the bound", () => {
    const cache = boundedCache<string, number>(2);
    cache.set("a", 1);
    cache.set("a", 2);
    cache.set("b", 3);
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBe(2);
  });

  it("holds many entries up to its bound and no more", () => {
    const cache = boundedCache<number, number>(10_000);
    for (let index = 0; index < 25_000; index++) cache.set(index, index);
    expect(cache.size).toBe(10_000);
    expect(cache.has(14_999)).toBe(false);
    expect(cache.get(24_999)).toBe(24_999);
  });

  it("refuses a bound that is not a positive integer", () => {
    expect(() => boundedCache(0)).toThrow(/at least one entry/);
    expect(() => boundedCache(1.5)).toThrow(/at least one entry/);
  });
});
