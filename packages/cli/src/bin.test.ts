import { spawn } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Runs the built command as a user would; `pnpm test` builds before testing.
const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const fixtures = fileURLToPath(new URL("./__fixtures__/", import.meta.url));

function run(
  args: string[],
  environment: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env["PATH"] ?? "", ...environment },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

// Every config file of this test file lives under one temporary folder, removed when the file is done.
let temporaryRoot: string;
beforeAll(async () => {
  temporaryRoot = await mkdtemp(join(tmpdir(), "jobtasks-bin-"));
});
afterAll(async () => {
  if (temporaryRoot) await rm(temporaryRoot, { recursive: true, force: true });
});

async function configFile(text: string): Promise<string> {
  const file = join(await mkdtemp(join(temporaryRoot, "case-")), "config.yaml");
  await writeFile(file, text);
  return file;
}

describe("jobtasks command", () => {
  it("stops a start with a broken config, naming the field, with exit code 1 and no stack trace", async () => {
    const file = await configFile(
      `adapters:\n  - name: tiny\n    module: ${fixtures}tiny-adapter.mjs\n    options: { baseUrl: nope }\n`,
    );
    const result = await run(["serve", "--config", file, "--port", "0"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("adapters[0].options.baseUrl:");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe("");
  });

  it("checks a valid config and lists its tools", async () => {
    const file = await configFile(
      `adapters:\n  - name: tiny\n    module: ${fixtures}tiny-adapter.mjs\n    options: { baseUrl: "http://127.0.0.1:9" }\n`,
    );
    const result = await run(["check", "--config", file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("tiny_job  (adapter tiny, tiny)");
  });

  it("explains its usage on a missing --config or an unknown command", async () => {
    for (const args of [["serve"], ["frobnicate"], ["serve", "--nope"]]) {
      const result = await run(args);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toContain("Usage:");
    }
  });

  it("refuses an invalid PORT with the variable named", async () => {
    const file = await configFile(
      `adapters:\n  - name: tiny\n    module: ${fixtures}tiny-adapter.mjs\n    options: { baseUrl: "http://127.0.0.1:9" }\n`,
    );
    const result = await run(["serve", "--config", file], { PORT: "eighty", JOBTASKS_SECRET: "x".repeat(40) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("PORT");
  });

  it("checks what serve would refuse: clashing tool names, a bad log level or token list", async () => {
    const tiny = (name: string) =>
      `  - name: ${name}\n    module: ${fixtures}tiny-adapter.mjs\n    options: { baseUrl: "http://127.0.0.1:9" }\n`;
    const clash = await configFile(`adapters:\n${tiny("one")}${tiny("two")}`);
    const clashResult = await run(["check", "--config", clash]);
    expect(clashResult.code).toBe(1);
    expect(clashResult.stderr).toMatch(/adapters\[1\].*tool "tiny_job".*clashes/);
    const single = await configFile(`adapters:\n${tiny("one")}`);
    expect((await run(["check", "--config", single], { JOBTASKS_LOG_LEVEL: "verbose" })).stderr).toMatch(
      /JOBTASKS_LOG_LEVEL: expected one of fatal, error/,
    );
    expect((await run(["check", "--config", single], { JOBTASKS_AUTH_TOKENS: "alice" })).stderr).toMatch(
      /JOBTASKS_AUTH_TOKENS \(entry 1\)/,
    );
  });

  it("checks the kept secret file as serve would read it, naming the file", async () => {
    const file = await configFile(
      `adapters:\n  - name: tiny\n    module: ${fixtures}tiny-adapter.mjs\n    options: { baseUrl: "http://127.0.0.1:9" }\n`,
    );
    // A directory where the secret file should be: serve could not read it, so check must not pass.
    const result = await run(["check", "--config", file], { JOBTASKS_SECRET_FILE: dirname(file) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Invalid configuration at ${dirname(file)}: cannot read the kept task-id secret (EISDIR)`,
    );
  });

  it("says a busy port is busy, naming how to choose another", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const file = await configFile(
        `adapters:\n  - name: tiny\n    module: ${fixtures}tiny-adapter.mjs\n    options: { baseUrl: "http://127.0.0.1:9" }\n`,
      );
      const result = await run(["serve", "--config", file, "--port", String(port)], {
        JOBTASKS_SECRET: "x".repeat(40),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`127.0.0.1:${port} is already in use; choose another port (PORT or --port)`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  });

  it("keeps serving after a stray rejected promise in an adapter, and logs it", async () => {
    const file = await configFile(
      `adapters:\n  - name: tiny\n    module: ${fixtures}tiny-adapter.mjs\n    options: { baseUrl: "http://127.0.0.1:9", strayRejection: true }\n`,
    );
    const child = spawn(process.execPath, [bin, "serve", "--config", file, "--port", "0"], {
      env: { PATH: process.env["PATH"] ?? "", JOBTASKS_SECRET: "x".repeat(40) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      // Both lines: the rejection may be logged before the line that says where the server listens.
      const logged = () => stderr.includes("unhandled promise rejection") && /"url":"http:/.test(stderr);
      const deadline = Date.now() + 30_000;
      while (!logged() && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(stderr).toContain("unhandled promise rejection");
      const url = /"url":"(http:[^"]+)"/.exec(stderr)?.[1];
      expect(url).toBeDefined();
      const health = await fetch(new URL("/healthz", url!));
      expect(health.status).toBe(200);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("refuses a short JOBTASKS_SECRET without printing it", async () => {
    const file = await configFile(
      `adapters:\n  - name: tiny\n    module: ${fixtures}tiny-adapter.mjs\n    options: { baseUrl: "http://127.0.0.1:9" }\n`,
    );
    const result = await run(["serve", "--config", file, "--port", "0"], { JOBTASKS_SECRET: "tooshort-secret" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("JOBTASKS_SECRET");
    expect(result.stderr).not.toContain("tooshort-secret");
  });
});
