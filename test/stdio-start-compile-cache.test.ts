import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import * as nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliBin, demoConfig, repositoryRoot } from "./support/cli-process.js";
import { resolveNode22 } from "./support/conformance-suite.js";
import { runToEnd, type Finished } from "./support/installed-package.js";

/**
 * A host that spawns a stdio server per conversation should pay for compiling jobtasks once: bin.js turns
 * on Node's compile cache (Node ≥ 22.1) before it imports the command line's bundle, and has Node write it
 * 2 s into a run too, for a host that ends its server with SIGKILL. The cache lives in the OS temp dir
 * unless NODE_COMPILE_CACHE says otherwise; a start never depends on it. On Node 20, which has no such
 * cache and is out of support, one line on stderr says so. Run with Node 22 whichever Node runs the suite
 * (the one the conformance suite uses), and with this one.
 */

const thisNodeHasCompileCache =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";
const thisNodeIsUnsupported = Number(process.versions.node.split(".")[0]) < 22;
const notice = `jobtasks: Node ${process.versions.node} is out of support; jobtasks runs on it, slower to start. Use Node 22 or 24.\n`;

/** Runs `jobtasks --version` with `node`, its temp dir (where Node keeps the cache by default) `temporary`. */
function version(node: string, temporary: string): Promise<Finished> {
  return runToEnd(node, [cliBin, "--version"], {
    cwd: process.cwd(),
    env: { PATH: process.env["PATH"] ?? "", TMPDIR: temporary },
  });
}

const printsTheVersion = (stderr = "") => ({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/), stderr });
const thisNodePrintsTheVersion = () => printsTheVersion(thisNodeIsUnsupported ? notice : "");
const cacheEntries = (temporary: string) => readdirSync(join(temporary, "node-compile-cache"), { recursive: true });

let workspace: string;
let node22: string;
beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "jobtasks-compile-cache-"));
  node22 = await resolveNode22();
}, 300_000);
afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

describe("bin.js and Node's compile cache", () => {
  it("on Node 22: the first start fills the cache in the OS temp dir, and says nothing on stderr", async () => {
    const temporary = await mkdtemp(join(workspace, "node22-"));
    expect(await version(node22, temporary)).toEqual(printsTheVersion());
    // The bundle, the core and zod's modules, and the few modules before them, each get an entry.
    expect(cacheEntries(temporary).length).toBeGreaterThan(3);
  });

  it(`on this Node (${process.version}): ${thisNodeHasCompileCache ? "fills the cache too" : "writes no cache, having none, and says it is out of support"}`, async () => {
    const temporary = await mkdtemp(join(workspace, "this-node-"));
    expect(await version(process.execPath, temporary)).toEqual(thisNodePrintsTheVersion());
    if (thisNodeHasCompileCache) expect(cacheEntries(temporary).length).toBeGreaterThan(3);
    else expect(existsSync(join(temporary, "node-compile-cache"))).toBe(false);
  });

  it("on Node 22: a server killed (SIGKILL) after 2 s has written the cache all the same", async () => {
    const temporary = await mkdtemp(join(workspace, "killed-"));
    const child = spawn(node22, [cliBin, "serve", "--config", demoConfig, "--stdio"], {
      cwd: repositoryRoot,
      env: {
        PATH: process.env["PATH"] ?? "",
        TMPDIR: temporary,
        JOBTASKS_SECRET: "compile-cache-test-secret-0123456789abcdef",
        JOBTASKS_LOG_LEVEL: "silent",
      },
      stdio: ["pipe", "ignore", "ignore"],
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      // Node makes the folder at once; the entries come with the write.
      const written = () => existsSync(join(temporary, "node-compile-cache")) && cacheEntries(temporary).length > 3;
      const deadline = Date.now() + 20_000;
      while (!written() && Date.now() < deadline && child.exitCode === null)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
    expect(cacheEntries(temporary).length).toBeGreaterThan(3);
  }, 30_000);

  it("starts all the same where the cache cannot be written", async () => {
    // A temp dir below a plain file: no folder can be made there.
    const notADirectory = join(workspace, "a-file");
    await writeFile(notADirectory, "");
    expect(await version(node22, join(notADirectory, "tmp"))).toEqual(printsTheVersion());
    expect(await version(process.execPath, join(notADirectory, "tmp"))).toEqual(thisNodePrintsTheVersion());
  });
});

describe(`serve --stdio on this Node (${process.version})`, () => {
  it(`${thisNodeIsUnsupported ? "says once on stderr that it is out of support" : "says nothing of its Node"}, and stdout carries only MCP`, async () => {
    const discover = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "node-notice-test", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    });
    const result = await runToEnd(process.execPath, [cliBin, "serve", "--config", demoConfig, "--stdio"], {
      cwd: repositoryRoot,
      env: {
        PATH: process.env["PATH"] ?? "",
        TMPDIR: workspace,
        JOBTASKS_SECRET: "compile-cache-test-secret-0123456789abcdef",
        JOBTASKS_LOG_LEVEL: "info",
      },
      input: `${discover}\n`,
      timeoutMs: 30_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const answers = result.stdout.trimEnd().split("\n");
    expect(answers.map((line) => JSON.parse(line) as unknown)).toEqual([
      expect.objectContaining({ jsonrpc: "2.0", id: 1, result: expect.any(Object) }),
    ]);
    const logs = thisNodeIsUnsupported ? result.stderr.slice(notice.length) : result.stderr;
    expect(result.stderr.startsWith(notice)).toBe(thisNodeIsUnsupported);
    expect(logs, "said once").not.toContain("out of support");
    // Every other line is a JSON log entry, as on any Node.
    for (const line of logs.trimEnd().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
  });
});
