import { spawn } from "node:child_process";
import { createServer, type AddressInfo, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

// The built command, as a user runs it; `pnpm test` builds before testing.
const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const demoConfig = fileURLToPath(new URL("../../../examples/demo/jobtasks.config.yaml", import.meta.url));

function run(
  args: string[],
  environment: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env["PATH"] ?? "", JOBTASKS_SECRET: "x".repeat(40), ...environment },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

let blocker: Server | undefined;
afterEach(() => {
  blocker?.close();
  blocker = undefined;
});

async function takenPort(): Promise<number> {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker!.listen(0, "127.0.0.1", resolve));
  return (blocker.address() as AddressInfo).port;
}

describe("a port that is taken", () => {
  it("is said to be in use, not called invalid configuration, by serve", async () => {
    const port = await takenPort();
    const result = await run(["serve", "--config", demoConfig, "--port", String(port)]);
    expect(result.code).toBe(1);
    // The log lines before it are JSON; the last line is what the person reads.
    expect(result.stderr.trim().split("\n").at(-1)).toBe(
      `127.0.0.1:${port} is already in use; choose another port (PORT or --port)`,
    );
  });

  it("is said to be in use by the demo, for its job API too", async () => {
    const port = await takenPort();
    const result = await run(["demo", "--port", "0", "--api-port", String(port)]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n").at(-1)).toBe(
      `127.0.0.1:${port} is already in use; choose another port (DEMO_API_PORT or --api-port)`,
    );
  });
});
