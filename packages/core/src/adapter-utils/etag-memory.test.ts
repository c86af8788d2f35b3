import { describe, expect, it } from "vitest";
import { EtagMemory } from "./etag-memory.js";

describe("EtagMemory", () => {
  it("recalls the last ETag and answer per URL, and forgets on request", () => {
    const memory = new EtagMemory<string>({ maxEntries: 10 });
    memory.remember("/a", '"1"', "first");
    memory.remember("/a", '"2"', "second");
    expect(memory.recall("/a")).toEqual({ etag: '"2"', answer: "second" });
    memory.forget("/a");
    expect(memory.recall("/a")).toBeUndefined();
  });

  it("forgets the least recently used first; a recall does not count as a use, a confirmation does", () => {
    const memory = new EtagMemory<string>({ maxEntries: 2 });
    memory.remember("/a", "a", "A");
    memory.remember("/b", "b", "B");
    memory.recall("/a");
    memory.remember("/c", "c", "C");
    expect(memory.recall("/a")).toBeUndefined();
    memory.confirmed("/b");
    memory.remember("/d", "d", "D");
    expect(memory.recall("/b")?.answer).toBe("B");
    expect(memory.recall("/c")).toBeUndefined();
    expect(memory.size).toBe(2);
  });

  it("bounded in bytes: keeps no answer larger than maxEntryBytes (forgetting the URL's older one) and stays under maxTotalBytes", () => {
    const memory = new EtagMemory<string>({ maxEntries: 100, maxTotalBytes: 10, maxEntryBytes: 6 });
    memory.remember("/a", "a", "aaaa", 4);
    memory.remember("/a", "a2", "too big", 7);
    expect(memory.recall("/a")).toBeUndefined();
    memory.remember("/b", "b", "bbbbb", 5);
    memory.remember("/c", "c", "cccc", 4);
    memory.remember("/d", "d", "dd", 2);
    expect(memory.recall("/b")).toBeUndefined();
    expect(memory.recall("/c")?.answer).toBe("cccc");
    expect(memory.recall("/d")?.answer).toBe("dd");
    memory.remember("/empty", "e", "", 0);
    expect(memory.recall("/empty")?.answer).toBe("");
  });

  it("bounded in bytes, it refuses an answer without its size", () => {
    const memory = new EtagMemory<string>({ maxEntries: 10, maxTotalBytes: 100 });
    expect(() => memory.remember("/a", "a", "A")).toThrow(TypeError);
  });
});
