import { afterEach, describe, expect, it, vi } from "vitest";
import { enableCompileCache } from "./enable-compile-cache.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("enableCompileCache", () => {
  it("turns Node's cache on, and has it written 2 s later", () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    enableCompileCache({
      enableCompileCache: () => calls.push("enable"),
      flushCompileCache: () => calls.push("flush"),
    });
    expect(calls).toEqual(["enable"]);
    vi.advanceTimersByTime(1_999);
    expect(calls).toEqual(["enable"]);
    vi.advanceTimersByTime(1);
    expect(calls).toEqual(["enable", "flush"]);
  });

  it("does nothing on a Node without the cache (Node 20), and never throws", () => {
    expect(() => enableCompileCache({})).not.toThrow();
    vi.useFakeTimers();
    let flushed = false;
    const failing = {
      enableCompileCache: () => {
        throw new Error("EACCES");
      },
      flushCompileCache: () => {
        flushed = true;
      },
    };
    expect(() => enableCompileCache(failing)).not.toThrow();
    vi.advanceTimersByTime(5_000);
    expect(flushed).toBe(false);
    enableCompileCache({
      enableCompileCache: () => undefined,
      flushCompileCache: () => {
        throw new Error("ENOSPC");
      },
    });
    expect(() => vi.advanceTimersByTime(5_000)).not.toThrow();
  });
});
