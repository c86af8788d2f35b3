import { describe, expect, it } from "vitest";
import { asyncContextHint } from "./async-context-hint.js";

describe("asyncContextHint", () => {
  it("advises the flag on Node 22 run without it, naming the variable that sets it", () => {
    expect(asyncContextHint("22.23.5", [], undefined)).toContain("NODE_OPTIONS=--experimental-async-context-frame");
    expect(asyncContextHint("22.23.5", ["--enable-source-maps"], "--max-old-space-size=512")).toBeDefined();
  });

  it("stays quiet once the flag is given (on the command line or in NODE_OPTIONS), or turned off on purpose", () => {
    expect(asyncContextHint("22.23.5", ["--experimental-async-context-frame"], undefined)).toBeUndefined();
    expect(asyncContextHint("22.23.5", [], "--enable-source-maps --experimental-async-context-frame")).toBeUndefined();
    expect(asyncContextHint("22.23.5", [], "--no-experimental-async-context-frame")).toBeUndefined();
  });

  it("says nothing on Node 24, which has context frames by default, nor on Node 20, which has none", () => {
    expect(asyncContextHint("24.22.3", [], undefined)).toBeUndefined();
    expect(asyncContextHint("20.20.2", [], undefined)).toBeUndefined();
  });
});
