import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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

let recordings = 0;

/**
 * Serves `config` on stdio with `entry` (bin.js by default), sends server/discover, and gives the first
 * answer, the files loaded by then, and the modules: those files and the modules bundled into them.
 */
async function modulesLoadedBeforeFirstAnswer(
  config: string,
  name: string,
  entry = cliBin,
): Promise<{ answer: Record<string, any>; files: string[]; modules: string[] }> {
  const record = join(workspace, `${name}-${++recordings}.txt`);
  const env = cliEnvironment({
    JOBTASKS_SECRET: "start-imports-test-secret-0123456789abcdef",
    GITHUB_TOKEN: "ghp_not-a-real-token",
    RECORD_LOADS_TO: record,
  });
  const child = spawn(process.execPath, ["--import", registerHook, entry, "serve", "--config", config, "--stdio"], {
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
    const files = (await readFile(record, "utf8")).split("\n").filter((url) => url !== "");
    const bundled = await Promise.all(files.filter((url) => bundleOutput.test(url)).map(modulesBundledInto));
    return { answer: JSON.parse(line) as Record<string, any>, files, modules: [...files, ...bundled.flat()] };
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

/** The files the bundler writes into packages/cli/dist. */
const bundleOutput = /packages\/cli\/dist\/(run-command-line\.bundle|bundle-chunk-[^/]+)\.mjs$/;

/** The modules (paths from the repository root) that esbuild put into a bundle file, from its comments. */
async function modulesBundledInto(url: string): Promise<string[]> {
  const text = await readFile(fileURLToPath(url), "utf8");
  return [...text.matchAll(/^\/\/ (\S+\.(?:m?js|cjs|json))$/gm)].map((match) => match[1]!);
}

/** Bundled into the command line: loaded as separate files, they would mean the bundle went unused. */
const bundledPackages = [
  "packages/server/dist/",
  "adapters/rest/dist/",
  "/jsonpath-plus/",
  "node_modules/@modelcontextprotocol/",
  "/yaml/",
  "/pino/",
  "/commander/",
];

const configs = [
  ["demo config (rest adapter)", demoConfig, "adapters/rest/dist/"],
  [
    "GitHub config (github-actions adapter)",
    join(repositoryRoot, "examples/github-ci/jobtasks.config.yaml"),
    "adapters/github-actions/dist/",
  ],
] as const;

describe("jobtasks serve --stdio loads only what its first answer needs", () => {
  it.each(configs)(
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

  it.each(configs)(
    "%s: starts from the bundle, whose modules load as one file each chunk, not one file each module",
    async (_name, config, adapterFiles) => {
      const { answer, files } = await modulesLoadedBeforeFirstAnswer(config, adapterFiles.split("/")[1]!);
      expect(answer).toMatchObject({ id: 1, result: { supportedVersions: ["2026-07-28"] } });
      const ownFiles = loadedFrom(files, "packages/cli/dist/").map((url) => url.replace(/.*packages\/cli\/dist\//, ""));
      // A stale bundle (a `tsc -b` since the last `pnpm build`) is not used: `pnpm build` writes it anew.
      expect(ownFiles, "the bundle was not used: run pnpm build").toContain("run-command-line.bundle.mjs");
      expect(ownFiles.filter((file) => !file.endsWith(".mjs")).sort()).toEqual([
        "bin.js",
        "enable-compile-cache.js",
        "start-bundle.js",
      ]);
      for (const part of bundledPackages)
        expect({ part, loaded: loadedFrom(files, part) }).toEqual({ part, loaded: [] });
    },
    60_000,
  );

  it.each(configs)(
    "%s, without the bundle (the modules tsc wrote): answers without the HTTP stack, the client libraries or an upstream HTTP client",
    async (_name, config, adapterFiles) => {
      const unbundled = join(repositoryRoot, "packages/cli/dist/run-command-line.js");
      const { answer, files } = await modulesLoadedBeforeFirstAnswer(config, adapterFiles.split("/")[1]!, unbundled);
      expect(answer).toMatchObject({ id: 1, result: { supportedVersions: ["2026-07-28"] } });
      expect(files.filter((url) => bundleOutput.test(url))).toEqual([]);
      expect(loadedFrom(files, "@modelcontextprotocol/server")).not.toEqual([]);
      expect(loadedFrom(files, adapterFiles)).not.toEqual([]);
      for (const part of notBeforeTheFirstAnswer)
        expect({ part, loaded: loadedFrom(files, part) }).toEqual({ part, loaded: [] });
    },
    60_000,
  );
});
