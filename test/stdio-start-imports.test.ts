import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliBin, cliEnvironment, demoConfig, repositoryRoot } from "./support/cli-process.js";

/**
 * An agent host spawns a stdio server per conversation and waits for its first answer, so `jobtasks serve
 * --stdio` must not load what that answer does not need: the HTTP stack, the client commands' libraries
 * (MCP client, prompts, live output), or an adapter's HTTP client (undici, Octokit) before a job asks for
 * it. A module hook records every module the process loads up to its answer to server/discover;
 * bench/stdio-startup.ts measures the time.
 */

let workspace: string;
let registerHook: string;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "jobtasks-start-imports-"));
  const hooks = join(workspace, "record-loads.mjs");
  await writeFile(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.RECORD_LOADS_TO, url + "\\n");
  return next(url, context);
}
`,
  );
  registerHook = join(workspace, "register.mjs");
  await writeFile(
    registerHook,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
});

afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

const discover = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "start-imports-test", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
})}\n`;

/** Serves `config` on stdio, sends server/discover, and gives the first answer and the modules loaded by then. */
async function modulesLoadedBeforeFirstAnswer(
  config: string,
  name: string,
): Promise<{ answer: Record<string, any>; modules: string[] }> {
  const record = join(workspace, `${name}.txt`);
  const env = cliEnvironment({
    JOBTASKS_SECRET: "start-imports-test-secret-0123456789abcdef",
    GITHUB_TOKEN: "ghp_not-a-real-token",
    RECORD_LOADS_TO: record,
  });
  const child = spawn(process.execPath, ["--import", registerHook, cliBin, "serve", "--config", config, "--stdio"], {
    cwd: repositoryRoot,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
        if (stdout.includes("\n")) resolve(stdout.slice(0, stdout.indexOf("\n")));
      });
      child.once("exit", (code) =>
        reject(new Error(`jobtasks serve exited with ${code} before answering:\n${stderr}`)),
      );
      child.stdin.write(discover);
    });
    // Read while the process still runs: nothing loaded after the answer counts.
    const modules = (await readFile(record, "utf8")).split("\n").filter((url) => url !== "");
    return { answer: JSON.parse(line) as Record<string, any>, modules };
  } finally {
    child.kill("SIGKILL");
  }
}

/** Packages (or files of ours) that the first answer needs none of. */
const notBeforeTheFirstAnswer = [
  "@modelcontextprotocol/client",
  "@modelcontextprotocol/ext-tasks",
  "@modelcontextprotocol/node",
  "@hono/",
  "@clack/",
  "log-update",
  "undici",
  "@octokit/",
  "packages/server/dist/http-server.js",
  "packages/cli/dist/client/run-client.js",
  "examples/demo/",
];

const loadedFrom = (modules: string[], part: string) => modules.filter((url) => decodeURIComponent(url).includes(part));

describe("jobtasks serve --stdio loads only what its first answer needs", () => {
  it.each([
    ["demo config (rest adapter)", demoConfig, "adapters/rest/dist/"],
    [
      "GitHub config (github-actions adapter)",
      join(repositoryRoot, "examples/github-ci/jobtasks.config.yaml"),
      "adapters/github-actions/dist/",
    ],
  ])(
    "%s: answers server/discover without the HTTP stack, the client libraries or an upstream HTTP client",
    async (_name, config, adapterFiles) => {
      const { answer, modules } = await modulesLoadedBeforeFirstAnswer(config, adapterFiles.split("/")[1]!);
      expect(answer).toMatchObject({ id: 1, result: { supportedVersions: ["2026-07-28"] } });
      // The recording works: the SDK's server and the configured adapter were loaded, and were seen.
      expect(loadedFrom(modules, "@modelcontextprotocol/server")).not.toEqual([]);
      expect(loadedFrom(modules, adapterFiles)).not.toEqual([]);
      for (const part of notBeforeTheFirstAnswer)
        expect({ part, loaded: loadedFrom(modules, part) }).toEqual({ part, loaded: [] });
    },
    60_000,
  );
});
