import { existsSync, readFileSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerElicitations, connectStdioRequester } from "./support/requester.js";
import { pollUntil, rawCall, rawResult } from "./support/raw-rpc.js";
import {
  hostEnvironment,
  installedBytes,
  npmInstall,
  packAll,
  repositoryRoot,
  runToEnd,
  startUntil,
} from "./support/installed-package.js";
import { discoverOverStdio, hostConfigBlocks, hostLaunch, readSnippets } from "./support/host-snippets.js";
import { quietStartupStderr } from "./support/cli-process.js";

/**
 * The packages as a user meets them: `pnpm pack:all`, then `npm install` of the tarballs in an empty
 * folder (third-party dependencies from the registry), then `npx jobtasks`, and the agent-host snippets of
 * docs/connect-a-client.md run against that install. Slow by nature (npm install): one file, one install.
 */

const optionalAdapters = ["jobtasks-github-actions", "jobtasks-aws-batch", "jobtasks-kubernetes"];
const packageVersion = (
  JSON.parse(readFileSync(join(repositoryRoot, "packages/cli/package.json"), "utf8")) as { version: string }
).version;

let workspace: string;
let packed: string;
let tarballs: string[];
let install: string;
let home: string;
let elsewhere: string;
let lightInstallBytes: number;

const tarballName = (file: string) => basename(file).replace(/-\d+\.\d+\.\d+\.tgz$/, "");
// Only PATH and HOME, also for npx: this process's environment (pnpm's NODE_PATH among it) could find
// packages the install does not hold.
const npx = (args: string[]) =>
  runToEnd("npx", ["--no-install", "jobtasks", ...args], {
    cwd: install,
    env: hostEnvironment(install, home),
    timeoutMs: 60_000,
  });

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "jobtasks-installed-"));
  packed = join(workspace, "packed");
  home = join(workspace, "home");
  elsewhere = join(workspace, "elsewhere");
  install = join(workspace, "user");
  await Promise.all([mkdir(packed), mkdir(home), mkdir(elsewhere)]);
  await writeFile(join(packed, "left-over.tgz"), "from an earlier run");
  tarballs = await packAll(packed);
  // First without the optional adapters and the testkit: what a user of the demo or the REST adapter installs.
  await npmInstall(
    install,
    tarballs.filter(
      (file) => !optionalAdapters.includes(tarballName(file)) && tarballName(file) !== "jobtasks-testkit",
    ),
  );
  lightInstallBytes = await installedBytes(join(install, "node_modules"));
}, 300_000);

afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

/** The workspace packages that are not private, by the name their tarball gets. */
function publishablePackages(): Array<{ directory: string; name: string }> {
  return ["packages", "adapters", "examples"].flatMap((group) =>
    readdirSync(join(repositoryRoot, group))
      .map((entry) => join(repositoryRoot, group, entry))
      .filter((directory) => existsSync(join(directory, "package.json")))
      .map((directory) => ({
        directory,
        manifest: JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as {
          name: string;
          private?: boolean;
        },
      }))
      .filter(({ manifest }) => !manifest.private)
      .map(({ directory, manifest }) => ({ directory, name: manifest.name.replace(/^@/, "").replace("/", "-") })),
  );
}

describe("pnpm pack:all", () => {
  it("writes one tarball per publishable package, into a folder it empties first", () => {
    expect(readdirSync(packed).sort()).toEqual(tarballs.map((file) => basename(file)).sort());
    expect(tarballs.map(tarballName).sort()).toEqual(
      publishablePackages()
        .map(({ name }) => name)
        .sort(),
    );
  });

  it("gives every tarball the LICENSE, a README, a CHANGELOG, real versions and where the project lives", async () => {
    const license = readFileSync(join(repositoryRoot, "LICENSE"), "utf8");
    expect(license).toContain("Apache License\n                           Version 2.0, January 2004");
    for (const file of tarballs) {
      const contents = join(workspace, "contents", tarballName(file));
      await mkdir(contents, { recursive: true });
      expect((await runToEnd("tar", ["-xzf", file, "-C", contents], { cwd: workspace, env: process.env })).code).toBe(
        0,
      );
      const unpacked = join(contents, "package");
      expect(readFileSync(join(unpacked, "LICENSE"), "utf8"), file).toBe(license);
      for (const name of ["README.md", "CHANGELOG.md"])
        expect(existsSync(join(unpacked, name)), `${file}: ${name}`).toBe(true);
      const manifestText = readFileSync(join(unpacked, "package.json"), "utf8");
      expect(manifestText, file).not.toContain("workspace:");
      const manifest = JSON.parse(manifestText) as Record<string, any>;
      expect(manifest, file).toMatchObject({
        license: "Apache-2.0",
        repository: { url: expect.any(String) },
        homepage: expect.any(String),
        bugs: { url: expect.any(String) },
      });
      // The Kubernetes adapter's client needs Node 22.19 (it fails at import on 20); every other package runs on 20.
      const engine = manifest["name"] === "@jobtasks/kubernetes" ? ">=22.19" : ">=20";
      expect(manifest["engines"]?.["node"], file).toBe(engine);
    }
  });

  it("ships every source map with the sources it points to, and no tests", () => {
    const contents = join(workspace, "contents");
    let maps = 0;
    for (const file of readdirSync(contents, { recursive: true, encoding: "utf8" })) {
      // The scaffold's templates (`jobtasks new adapter`) are content for the user's new package, tests included.
      if (file.includes("/package/templates/")) continue;
      expect(file).not.toMatch(/\.test\.|test-support|__fixtures__/);
      if (!file.endsWith(".map")) continue;
      maps++;
      const map = JSON.parse(readFileSync(join(contents, file), "utf8")) as { sources: string[] };
      for (const source of map.sources)
        expect(existsSync(resolve(dirname(join(contents, file)), source)), `${file} -> ${source}`).toBe(true);
    }
    expect(maps).toBeGreaterThan(0);
  });
  it("ships the example configs without the schema path that only reaches the schema in the repository", () => {
    const contents = join(workspace, "contents");
    const configs = readdirSync(contents, { recursive: true, encoding: "utf8" }).filter(
      (file) => /\.ya?ml$/.test(file) && !file.includes("/package/templates/"),
    );
    expect(configs).toContain(join("jobtasks-demo", "package", "jobtasks.config.yaml"));
    for (const config of configs) {
      const shipped = readFileSync(join(contents, config), "utf8");
      expect(shipped, config).not.toContain("yaml-language-server");
      // Only that line is left out: the rest is the file of the repository.
      if (!config.startsWith("jobtasks-demo")) continue;
      const source = readFileSync(join(repositoryRoot, "examples/demo", basename(config)), "utf8");
      expect(source.split("\n")[0]).toMatch(/^# yaml-language-server: \$schema=\.\.\//);
      expect(shipped, config).toBe(source.slice(source.indexOf("\n") + 1));
    }
  });
});

describe("npx jobtasks, installed without the optional adapters", () => {
  const demoConfig = () => join(install, "node_modules/@jobtasks/demo/jobtasks.config.yaml");

  it("ships the core's zod as the zod it depends on, one copy in the install", async () => {
    const zod = (await import(pathToFileURL(join(install, "node_modules/@jobtasks/core/dist/zod.js")).href)) as {
      z: { string(): { parse(value: unknown): unknown } };
    };
    expect(zod.z.string().parse("a string")).toBe("a string");
    const copies = readdirSync(join(install, "node_modules"), { recursive: true, encoding: "utf8" }).filter((path) =>
      /(^|\/)zod\/package\.json$/.test(path),
    );
    expect(copies).toEqual(["zod/package.json"]);
  });

  it("answers --version with the package's version", async () => {
    const result = await npx(["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `${packageVersion}\n` });
  });

  it("starts from the bundle it ships, which `pnpm build` made before packing: bin.js imports it", () => {
    const dist = join(install, "node_modules/jobtasks/dist");
    expect(existsSync(join(dist, "command-line.mjs"))).toBe(true);
    expect(readFileSync(join(dist, "bin.js"), "utf8")).toContain('"./command-line.mjs"');
  });

  it("is found by npx only inside its folder; by its absolute path from any folder, as the README tells hosts", async () => {
    // What a host's environment holds when jobtasks is not installed globally: node, and no jobtasks on PATH.
    const withoutGlobal = { PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(":"), HOME: home };
    // Offline: npx then looks the name up in its cache only, and fails at once instead of asking the registry
    // (a test talks to no network; a fresh HOME's npm retried the registry for a minute).
    const fromRoot = await runToEnd("npx", ["--no-install", "jobtasks", "--version"], {
      cwd: "/",
      env: { ...withoutGlobal, npm_config_offline: "true" },
      timeoutMs: 15_000,
    });
    expect(fromRoot.code, "npx from / must not reach this install").not.toBe(0);
    expect(fromRoot.stdout).not.toContain(packageVersion);
    const absolute = await runToEnd(join(install, "node_modules/.bin/jobtasks"), ["--version"], {
      cwd: "/",
      env: withoutGlobal,
    });
    expect(absolute).toMatchObject({ code: 0, stdout: `${packageVersion}\n` });
    const readme = readFileSync(join(repositoryRoot, "README.md"), "utf8");
    const installSection = readme.slice(readme.indexOf("## Install"), readme.indexOf("### Node versions"));
    expect(installSection).toContain("npm install -g jobtasks");
    expect(installSection).toContain("/path/to/that/folder/node_modules/.bin/jobtasks");
    // No host is told to start `npx jobtasks`: neither a snippet nor the README's table of hosts.
    for (const block of hostConfigBlocks()) expect(block).not.toMatch(/npx\b/);
    const hostTable = readme.slice(readme.indexOf("### Connect a client"), readme.indexOf("## How it works"));
    expect(hostTable).not.toMatch(/npx (-y )?jobtasks/);
  });

  it("checks the demo config it ships, and a config of the user's own", async () => {
    const shipped = await npx(["check", "--config", demoConfig()]);
    expect(shipped.stdout).toContain("demo_pipeline  (adapter demo, rest)");
    expect(shipped.code).toBe(0);
    const own = join(elsewhere, "rest.config.yaml");
    await writeFile(
      own,
      `adapters:\n  - name: jobs\n    kind: rest\n    options: { preset: demo-api, baseUrl: "http://127.0.0.1:9" }\n`,
    );
    expect(await npx(["check", "--config", own])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("demo_pipeline"),
    });
  });

  it.each([
    ["aws-batch", "@jobtasks/aws-batch"],
    ["github-actions", "@jobtasks/github-actions"],
  ])("refuses kind: %s with the package to install named", async (kind, packageName) => {
    const config = join(elsewhere, `${kind}.config.yaml`);
    await writeFile(config, `adapters:\n  - name: jobs\n    kind: ${kind}\n    options: {}\n`);
    const result = await npx(["check", "--config", config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `adapters[0].kind: ${kind} needs the package ${packageName}: npm install ${packageName}`,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("stays light: the GitHub and AWS clients are not installed", () => {
    expect(existsSync(join(install, "node_modules/@octokit"))).toBe(false);
    expect(existsSync(join(install, "node_modules/@aws-sdk"))).toBe(false);
    // 55 MB (55,920 KiB) when measured in December 2026, the command line's bundle included;
    // 102 MB with both optional adapters. The bound is that figure plus 10 %: a new dependency or a heavier
    // release shows here; then measure again and update this bound and the README's Install section together.
    expect(lightInstallBytes).toBeLessThan(60 * 1024 * 1024);
  });

  it("serves a config over HTTP", async () => {
    const server = await startUntil(
      "npx",
      ["--no-install", "jobtasks", "serve", "--config", demoConfig(), "--port", "0"],
      {
        cwd: install,
        env: hostEnvironment(install, home, { DEMO_API_URL: "http://127.0.0.1:9" }),
        ready: /"url":"(http:\/\/[^"]+)"/,
      },
    );
    try {
      const discovered = await rawResult(server.match[1]!, "server/discover", {}, { tasks: false });
      expect(discovered["capabilities"]?.["extensions"]).toHaveProperty(["io.modelcontextprotocol/tasks"]);
    } finally {
      await server.stop();
    }
  });

  it("runs the demo over HTTP, printing its endpoint, and a pipeline completes through it", async () => {
    const demo = await startUntil("npx", ["--no-install", "jobtasks", "demo", "--port", "0", "--api-port", "0"], {
      cwd: install,
      env: hostEnvironment(install, home),
      ready: /MCP endpoint\s+(http:\/\/\S+\/mcp)/,
    });
    try {
      const url = demo.match[1]!;
      const created = await rawResult(url, "tools/call", {
        name: "demo_pipeline",
        arguments: { steps: 1, stepMs: 10 },
      });
      const taskId = created["taskId"] as string;
      const done = await pollUntil(
        () => rawCall(url, "tasks/get", { taskId }),
        (response) => response.body?.result?.["status"] !== "working",
      );
      expect(done.body?.result).toMatchObject({
        status: "completed",
        result: { structuredContent: { status: "succeeded" } },
      });
    } finally {
      await demo.stop();
    }
  });

  it("runs the demo over stdio, with its job API in the same process: an approval pipeline completes", async () => {
    const elicitations = answerElicitations({ action: "accept", content: { approve: true } });
    const requester = await connectStdioRequester({
      command: join(install, "node_modules/.bin/jobtasks"),
      args: ["demo", "--stdio"],
      cwd: elsewhere,
      env: hostEnvironment(install, home),
      onInputRequest: elicitations.handler,
    });
    try {
      const execution = await requester.session.callTool("demo_pipeline", { steps: 2, stepMs: 10, approval: true });
      expect(execution.kind).toBe("task");
      const { outcome } = await execution.settle();
      expect(outcome).toMatchObject({ status: "completed", result: { structuredContent: { status: "succeeded" } } });
      expect(elicitations.asked).toHaveLength(1);
    } finally {
      await requester.close();
    }
  });
});

describe("the install with every tarball (npm install packed/*.tgz)", () => {
  const snippets = readSnippets();

  beforeAll(async () => {
    // The rest of the tarballs into the same folder: it then holds every package pack:all wrote.
    await npmInstall(
      install,
      tarballs.filter(
        (file) => optionalAdapters.includes(tarballName(file)) || tarballName(file) === "jobtasks-testkit",
      ),
    );
  }, 300_000);

  it("holds every package, the testkit's vitest peer included", async () => {
    for (const file of tarballs) {
      const manifest = JSON.parse(
        readFileSync(join(workspace, "contents", tarballName(file), "package", "package.json"), "utf8"),
      ) as { name: string };
      expect(existsSync(join(install, "node_modules", manifest.name, "package.json")), manifest.name).toBe(true);
    }
    expect(existsSync(join(install, "node_modules", "vitest", "package.json"))).toBe(true);
  });

  it("starts an AWS Batch config on this Node without the AWS SDK's Node-version notice", async () => {
    const config = join(workspace, "own", "aws-batch.config.yaml");
    await mkdir(dirname(config), { recursive: true });
    await writeFile(config, readFileSync(join(repositoryRoot, "examples/aws-batch/jobtasks.config.yaml"), "utf8"));
    const discovery = await discoverOverStdio({
      command: join(install, "node_modules/.bin/jobtasks"),
      args: ["serve", "--config", config, "--stdio"],
      cwd: elsewhere,
      env: hostEnvironment(install, home, {
        AWS_REGION: "eu-west-1",
        AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
        AWS_SECRET_ACCESS_KEY: "example",
        // Over stdio only warnings are logged unless a level is asked for; the start-up line shows it started.
        JOBTASKS_LOG_LEVEL: "info",
      }),
    });
    expect(discovery.answer["result"]?.["capabilities"]).toBeDefined();
    expect(discovery.stderr).toContain("serving MCP on stdio");
    expect(discovery.stderr).not.toMatch(/Warning/);
  });

  it("covers every agent-host config in docs/connect-a-client.md, for every host", () => {
    expect(hostConfigBlocks()).toEqual(snippets.map((snippet) => snippet.text));
    expect(snippets.map((snippet) => snippet.name).sort()).toEqual(
      expect.arrayContaining([
        "claude-code-http",
        "claude-code-stdio",
        "claude-desktop",
        "codex-http",
        "codex-stdio",
        "cursor-http",
        "cursor-stdio",
        "vscode-http",
        "vscode-stdio",
      ]),
    );
  });

  it.each(snippets.map((snippet) => [snippet.name, snippet] as const))(
    "host snippet %s: the server it starts or names answers server/discover",
    async (_name, snippet) => {
      const launch = hostLaunch(snippet);
      if (launch.transport === "http") {
        // The snippets name the demo's default address; the test's demo listens on a free port instead.
        expect(launch.url).toBe("http://127.0.0.1:3000/mcp");
        const demo = await startUntil(
          join(install, "node_modules/.bin/jobtasks"),
          ["demo", "--port", "0", "--api-port", "0"],
          {
            cwd: elsewhere,
            env: hostEnvironment(install, home),
            ready: /MCP endpoint\s+http:\/\/127\.0\.0\.1:(\d+)\/mcp/,
          },
        );
        try {
          const url = launch.url.replace(":3000/", `:${demo.match[1]}/`);
          const discovered = await rawResult(url, "server/discover", {}, { tasks: false });
          expect(discovered["capabilities"]?.["extensions"]).toHaveProperty(["io.modelcontextprotocol/tasks"]);
        } finally {
          await demo.stop();
        }
        return;
      }
      // A config of the user's own, where the snippet's placeholder path points; its credential comes from
      // the snippet's env (GitHub is never called: nothing is started).
      const ownConfig = join(workspace, "own", "jobtasks.config.yaml");
      await mkdir(dirname(ownConfig), { recursive: true });
      await writeFile(ownConfig, readFileSync(join(repositoryRoot, "examples/github-ci/jobtasks.config.yaml"), "utf8"));
      const args = launch.args.map((arg) => (arg === "/absolute/path/to/jobtasks.config.yaml" ? ownConfig : arg));
      const discovery = await discoverOverStdio({
        command: launch.command,
        args,
        cwd: elsewhere,
        env: hostEnvironment(install, home, launch.env),
      });
      expect(discovery.answer["result"]?.["capabilities"]?.["extensions"], discovery.stderr).toHaveProperty([
        "io.modelcontextprotocol/tasks",
      ]);
      for (const line of discovery.stdoutLines)
        expect(JSON.parse(line), "stdout carries MCP messages only").toMatchObject({ jsonrpc: "2.0" });
      expect(discovery.exit, "ends by itself when the host closes stdin").toEqual({ code: 0, signal: null });
      // A host such as Claude Code files every stderr line of a stdio server as an error.
      expect(discovery.stderr, "nothing on stderr at start-up (on Node 20, the one notice)").toBe(quietStartupStderr);
    },
  );
});

describe("an adapter written outside the repository against the packed packages (the guide's way)", () => {
  let adapter: string;
  const tarball = (name: string) => tarballs.find((file) => tarballName(file) === name)!;
  // The scaffolded package's own tools (npm, tsc, vitest) with this run's npm settings, but not the
  // vitest worker's variables of the suite running this test.
  const npmIn = (directory: string, args: string[], timeoutMs = 240_000) =>
    runToEnd("npm", args, {
      cwd: directory,
      env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^VITEST|^NODE_OPTIONS$/.test(name))),
      timeoutMs,
    });

  beforeAll(async () => {
    adapter = join(workspace, "adapters", "render-queue");
    const scaffolded = await runToEnd(
      join(install, "node_modules/.bin/jobtasks"),
      ["new", "adapter", "render-queue", "--dir", adapter],
      { cwd: elsewhere, env: hostEnvironment(install, home) },
    );
    expect(scaffolded.code, scaffolded.stderr).toBe(0);
    // What the guide and the scaffold's README say to run before the packages are published: both tarballs
    // in one install (each then replaces the range package.json names, testkit staying a dev dependency).
    const installed = await npmIn(adapter, [
      "install",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      tarball("jobtasks-core"),
      tarball("jobtasks-testkit"),
    ]);
    expect(installed.code, `${installed.stdout}\n${installed.stderr}`).toBe(0);
    expect(readFileSync(join(adapter, ".gitignore"), "utf8")).toContain("node_modules/");
  }, 600_000);

  it("depends on the tarballs, and builds, typechecks and passes its own tests, the worked approval among them", async () => {
    const manifest = JSON.parse(readFileSync(join(adapter, "package.json"), "utf8")) as Record<string, any>;
    expect(manifest["dependencies"]["@jobtasks/core"]).toMatch(/^file:.*jobtasks-core-\d+\.\d+\.\d+\.tgz$/);
    expect(manifest["devDependencies"]["@jobtasks/testkit"]).toMatch(/^file:.*jobtasks-testkit-\d+\.\d+\.\d+\.tgz$/);
    for (const script of ["typecheck", "build"]) {
      const ran = await npmIn(adapter, ["run", script], 120_000);
      expect(ran.code, `${script}:\n${ran.stdout}\n${ran.stderr}`).toBe(0);
    }
    const tests = await npmIn(adapter, ["test", "--", "--reporter", "verbose"], 180_000);
    const output = (tests.stdout + tests.stderr).replace(/\x1b\[[0-9;]*m/g, "");
    expect(tests.code, output).toBe(0);
    expect(output).toMatch(/Test Files\s+4 passed/);
    expect(output).toMatch(/✓ .*lists input requests for a job waiting for input, and delivers the answers/);
  }, 400_000);

  it("is served by the installed jobtasks from its build (module: ./dist/index.js)", async () => {
    const config = join(adapter, "jobtasks.config.yaml");
    await writeFile(
      config,
      "adapters:\n  - name: render_queue\n    module: ./dist/index.js\n    options:\n      baseUrl: http://127.0.0.1:9/api\n      token: test-token-0123456789\n",
    );
    const checked = await runToEnd(join(install, "node_modules/.bin/jobtasks"), ["check", "--config", config], {
      cwd: elsewhere,
      env: hostEnvironment(install, home),
    });
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toContain("start_render_queue_job");
  });
});
