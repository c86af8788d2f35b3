import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import * as nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The built command, as a user runs it; `pnpm test` builds before testing.
const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const nodeHasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";

/** Runs `jobtasks --version` with `TMPDIR` set, where Node keeps its compile cache by default. */
function versionWithTemporaryDirectory(temporary: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, "--version"], {
      env: { PATH: process.env["PATH"] ?? "", TMPDIR: temporary },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout }));
  });
}

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "jobtasks-compile-cache-"));
});
afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

describe("bin.js and Node's compile cache", () => {
  it(`${nodeHasCompileCache ? "fills Node's compile cache" : "leaves the temp dir alone on a Node without a compile cache"}, in the OS temp dir`, async () => {
    const temporary = await mkdtemp(join(workspace, "tmp-"));
    const run = await versionWithTemporaryDirectory(temporary);
    expect(run).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
    const cache = join(temporary, "node-compile-cache");
    if (nodeHasCompileCache) expect(readdirSync(cache, { recursive: true }).length).toBeGreaterThan(0);
    else expect(existsSync(cache)).toBe(false);
  });

  it("starts all the same where the cache cannot be written", async () => {
    // A temp dir below a plain file: no folder can be made there.
    const notADirectory = join(workspace, "a-file");
    await writeFile(notADirectory, "");
    const run = await versionWithTemporaryDirectory(join(notADirectory, "tmp"));
    expect(run).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
  });
});
