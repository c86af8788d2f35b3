import { spawn } from "node:child_process";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliBin, cliEnvironment, demoConfig, repositoryRoot } from "./support/cli-process.js";

/**
 * An agent host spawns a stdio server per conversation and waits for its first answer, so `jobtasks serve
 * --stdio` must not run what that answer does not need: the HTTP stack, the client commands' libraries
 * (MCP client, prompts, live output), or an adapter's HTTP client (undici, Octokit) before a job asks for
 * it. V8's coverage (NODE_V8_COVERAGE, written as the process exits) tells which files the process
 * compiled and, inside the command line's bundle, which modules ran: esbuild wraps a module that is
 * imported lazily in a function named by its path, run on that import. bench/stdio-startup.ts measures the
 * time.
 */

let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "jobtasks-start-imports-"));
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

interface ScriptCoverage {
  url: string;
  functions: { functionName: string; ranges: { count: number }[] }[];
}

let recordings = 0;

/**
 * Serves `config` on stdio with `entry` (bin.js by default), sends server/discover, and after the first
 * answer ends stdin, as a host ends a conversation. Gives that answer, the files the process compiled, and
 * the modules that ran: the files, and the modules of the bundle that ran.
 */
async function modulesLoadedBeforeFirstAnswer(
  config: string,
  name: string,
  entry = cliBin,
): Promise<{ answer: Record<string, any>; files: string[]; modules: string[]; bundled: string[]; builtins: string[] }> {
  const coverage = join(workspace, `${name}-${++recordings}`);
  const builtinsFile = `${coverage}-builtins.json`;
  const env = cliEnvironment({
    JOBTASKS_SECRET: "start-imports-test-secret-0123456789abcdef",
    GITHUB_TOKEN: "ghp_not-a-real-token",
    NODE_V8_COVERAGE: coverage,
    JOBTASKS_TEST_BUILTINS_FILE: builtinsFile,
  });
  const recordBuiltins = new URL("./support/record-builtins.mjs", import.meta.url).href;
  const child = spawn(process.execPath, ["--import", recordBuiltins, entry, "serve", "--config", config, "--stdio"], {
    cwd: repositoryRoot,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
        if (stdout.includes("\n")) resolve(stdout.slice(0, stdout.indexOf("\n")));
      });
      void exited.then((code) => reject(new Error(`jobtasks serve exited with ${code} before answering:\n${stderr}`)));
      child.stdin.write(discover);
    });
    // Nothing but the end of the conversation comes after the answer: the process stops and writes coverage.
    child.stdin.end();
    expect(await exited).toBe(0);
    const scripts: ScriptCoverage[] = [];
    for (const file of await readdir(coverage))
      scripts.push(
        ...(JSON.parse(await readFile(join(coverage, file), "utf8")) as { result: ScriptCoverage[] }).result,
      );
    const files = scripts.map((script) => script.url).filter((url) => url.startsWith("file:"));
    const loadedBundle = await Promise.all(
      scripts.filter((script) => bundleOutput.test(script.url)).map((script) => modulesThatRanIn(script)),
    );
    return {
      answer: JSON.parse(line) as Record<string, any>,
      files,
      modules: [...files, ...loadedBundle.flatMap((modules) => modules.ran)],
      // Every module of the bundle, in the files this start read and in the chunks it left unread.
      bundled: (await bundleFiles()).flatMap((file) => modulesIn(file.text)),
      builtins: JSON.parse(await readFile(builtinsFile, "utf8")) as string[],
    };
  } finally {
    child.kill("SIGKILL");
  }
}

/**
 * The modules (paths from the repository root, from esbuild's `// path` comments) of a bundle that ran: a
 * module at the top of the bundle always does; one esbuild wrapped runs when its wrapper, a function named
 * by its path, is called.
 */
async function modulesThatRanIn(script: ScriptCoverage): Promise<{ all: string[]; ran: string[] }> {
  const text = await readFile(fileURLToPath(script.url), "utf8");
  const modules = modulesIn(text);
  const calls = new Map<string, number>();
  for (const { functionName, ranges } of script.functions)
    calls.set(functionName, (calls.get(functionName) ?? 0) + (ranges[0]?.count ?? 0));
  const ran = modules.filter((module) => {
    const wrapped = text.includes(`\n  "${module}"(`);
    return !wrapped || (calls.get(module) ?? 0) > 0;
  });
  return { all: modules, ran };
}

/** The modules of one file of the bundle, by esbuild's `// path` comments. */
function modulesIn(text: string): string[] {
  return [...new Set([...text.matchAll(/^\/\/ (\S+\.(?:m?js|cjs|json))$/gm)].map((match) => match[1]!))];
}

/** The files of the bundle: its entry and the chunks of what only some commands import. */
async function bundleFiles(): Promise<{ name: string; text: string }[]> {
  const dist = join(repositoryRoot, "packages/cli/dist");
  const names = (await readdir(dist)).filter((name) => bundleOutput.test(`packages/cli/dist/${name}`));
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(join(dist, name), "utf8") })));
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
  // The OpenTelemetry SDK loads only when server.metrics or the OTEL_* variables ask for it (the API may).
  "@opentelemetry/sdk-",
  "@opentelemetry/exporter-",
  "@opentelemetry/resources",
  "@opentelemetry/context-async-hooks",
  "packages/server/dist/http-server.js",
  // OAuth's token check and jose load only when a server verifies OAuth tokens.
  "packages/server/dist/oauth/",
  "/jose/",
  "packages/cli/dist/client/run-client.js",
  "examples/demo/",
];

/**
 * What the bundle leaves for later although the SDK's own modules load it at once: its JSON Schema validator
 * (ajv), which checks only an elicitation answer (packages/cli/scripts/sdk-node-shims.mjs).
 */
const notBeforeTheFirstAnswerFromTheBundle = ["/server/dist/ajvProvider-"];

/**
 * Node's own modules that only a socket of ours needs. An ES import of node:http alone loads the rest, and
 * Node's bundled undici with them (http's lazy WebSocket getters run as its ES module facade is built):
 * 20-30 ms of a start on Node 22 and 24. So the HTTP server and the metrics port import node:http only when
 * they start (packages/server/src/start-http-server.ts, metrics-endpoint.ts).
 */
const builtinsNotBeforeTheFirstAnswer = ["http", "https", "http2", "tls", "zlib", "internal/deps/undici/undici"];

const loadedFrom = (modules: string[], part: string) => modules.filter((url) => decodeURIComponent(url).includes(part));

/** The folders of the zod packages whose modules a process loaded: one, when it holds one zod. */
const zodPackagesLoadedFrom = (files: string[]) => [
  ...new Set(loadedFrom(files, "/zod/").map((url) => url.replace(/(\/node_modules\/zod\/).*/, "$1"))),
];

/** The files the bundler writes into packages/cli/dist: the entry, and chunks that commands import lazily. */
const bundleOutput = /packages\/cli\/dist\/command-line(-chunk-[A-Z0-9]+)?\.mjs$/;

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
      const { answer, modules, bundled } = await modulesLoadedBeforeFirstAnswer(config, adapterFiles.split("/")[1]!);
      expect(answer).toMatchObject({ id: 1, result: { supportedVersions: ["2026-07-28"] } });
      // The recording works: the SDK's server and the configured adapter ran, and were seen; the HTTP
      // stack and the client, in the bundle too, were told apart as not run.
      expect(loadedFrom(modules, "@modelcontextprotocol/server")).not.toEqual([]);
      expect(loadedFrom(modules, adapterFiles)).not.toEqual([]);
      expect(bundled).toEqual(
        expect.arrayContaining(["packages/server/dist/http-server.js", "packages/cli/dist/client/run-client.js"]),
      );
      for (const part of [...notBeforeTheFirstAnswer, ...notBeforeTheFirstAnswerFromTheBundle])
        expect({ part, loaded: loadedFrom(modules, part) }).toEqual({ part, loaded: [] });
    },
    60_000,
  );

  it.each(configs)(
    "%s: answers server/discover without loading Node's HTTP, TLS or zlib modules",
    async (_name, config, adapterFiles) => {
      const { answer, builtins } = await modulesLoadedBeforeFirstAnswer(config, adapterFiles.split("/")[1]!);
      expect(answer).toMatchObject({ id: 1, result: { supportedVersions: ["2026-07-28"] } });
      // The recording works: what a stdio server does use is there.
      expect(builtins).toEqual(expect.arrayContaining(["crypto", "net"]));
      expect(builtins.filter((builtin) => builtinsNotBeforeTheFirstAnswer.includes(builtin))).toEqual([]);
    },
    60_000,
  );

  it.each(configs)(
    "%s: starts from the bundle, whose modules load as one file, not one file each module",
    async (_name, config, adapterFiles) => {
      const { answer, files, bundled } = await modulesLoadedBeforeFirstAnswer(config, adapterFiles.split("/")[1]!);
      expect(answer).toMatchObject({ id: 1, result: { supportedVersions: ["2026-07-28"] } });
      const ownFiles = loadedFrom(files, "packages/cli/dist/").map((url) => url.replace(/.*packages\/cli\/dist\//, ""));
      const chunks = ownFiles.filter((file) => file.startsWith("command-line-chunk-"));
      expect(ownFiles.filter((file) => !chunks.includes(file)).sort()).toEqual([
        "bin.js",
        "command-line.mjs",
        "enable-compile-cache.js",
        "unsupported-node-notice.js",
      ]);
      // The chunk of the client runtime (run-client.js) stays unread: a serve start does not even parse it.
      const clientChunks = (await bundleFiles())
        .filter((file) => modulesIn(file.text).includes("packages/cli/dist/client/run-client.js"))
        .map((file) => file.name);
      expect(clientChunks).not.toEqual([]);
      expect(chunks.filter((chunk) => clientChunks.includes(chunk))).toEqual([]);
      // One zod, the core's, for the server, the SDK and every adapter alike: none in the command line's
      // bundle, and zod's own modules from one copy of its package, through the core's re-export.
      expect(loadedFrom(files, "packages/core/dist/zod.js")).toHaveLength(1);
      expect(zodPackagesLoadedFrom(files)).toHaveLength(1);
      expect(bundled.filter((module) => module.includes("/zod/"))).toEqual([]);
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
      // The SDK's "zod/v4" and the core's zod are one package here too.
      expect(zodPackagesLoadedFrom(files)).toHaveLength(1);
      for (const part of notBeforeTheFirstAnswer)
        expect({ part, loaded: loadedFrom(files, part) }).toEqual({ part, loaded: [] });
    },
    60_000,
  );
});
