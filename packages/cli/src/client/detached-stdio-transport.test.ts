import { describe, expect, it } from "vitest";
import { DetachedStdioTransport } from "./detached-stdio-transport.js";

describe("DetachedStdioTransport", () => {
  it("keeps a bounded tail of the server's stderr, even of one endless line", async () => {
    const script = `process.stderr.write("x".repeat(200000) + "END")`;
    const transport = new DetachedStdioTransport(process.execPath, ["-e", script], process.env);
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    await transport.start();
    await closed;
    const tail = transport.recentStderr();
    expect(tail.endsWith("END")).toBe(true);
    expect(tail.length).toBeLessThanOrEqual(4_000);
  });
});
