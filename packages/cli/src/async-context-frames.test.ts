import { describe, expect, it } from "vitest";
import { asyncContextFrames, type AsyncContextFramesFacts } from "./async-context-frames.js";

const node22: AsyncContextFramesFacts = {
  nodeVersion: "22.23.5",
  execArgv: [],
  nodeOptions: undefined,
  canReplaceProcess: true,
  restarted: false,
};

describe("asyncContextFrames", () => {
  it("restarts Node 22 run without the flag, keeping whatever else it was given", () => {
    expect(asyncContextFrames(node22)).toEqual({ kind: "restart" });
    expect(
      asyncContextFrames({ ...node22, execArgv: ["--enable-source-maps"], nodeOptions: "--max-old-space-size=512" }),
    ).toEqual({ kind: "restart" });
  });

  it("leaves the choice to an operator who made it, on the command line or in NODE_OPTIONS, either way", () => {
    expect(asyncContextFrames({ ...node22, execArgv: ["--experimental-async-context-frame"] })).toEqual({
      kind: "settled",
    });
    expect(
      asyncContextFrames({ ...node22, nodeOptions: "--enable-source-maps --experimental-async-context-frame" }),
    ).toEqual({ kind: "settled" });
    expect(asyncContextFrames({ ...node22, nodeOptions: "--no-experimental-async-context-frame" })).toEqual({
      kind: "settled",
    });
  });

  it("advises the flag, naming the variable, where the process cannot be replaced, and never restarts twice", () => {
    const cannot = asyncContextFrames({ ...node22, canReplaceProcess: false });
    expect(cannot.kind).toBe("advise");
    expect(cannot.kind === "advise" && cannot.message).toContain("NODE_OPTIONS=--experimental-async-context-frame");
    expect(asyncContextFrames({ ...node22, restarted: true }).kind).toBe("advise");
  });

  it("does nothing on Node 24, which has context frames by default, nor on Node 20, which has none", () => {
    expect(asyncContextFrames({ ...node22, nodeVersion: "24.22.3" })).toEqual({ kind: "settled" });
    expect(asyncContextFrames({ ...node22, nodeVersion: "20.20.2" })).toEqual({ kind: "settled" });
  });
});
