import { createServer, type AddressInfo } from "node:net";
import { Command } from "commander";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CommandModule } from "./command-module.js";
import { commandModules } from "./commands.js";
import { runProgram } from "./program.js";

/** Runs the program in this process and records what it printed. Nothing here gets as far as serving. */
async function run(argv: string[], modules: readonly CommandModule[] = commandModules) {
  let stdout = "";
  let stderr = "";
  vi.spyOn(process.stdout, "write").mockImplementation(
    (chunk: string | Uint8Array) => ((stdout += String(chunk)), true),
  );
  vi.spyOn(process.stderr, "write").mockImplementation(
    (chunk: string | Uint8Array) => ((stderr += String(chunk)), true),
  );
  try {
    const exitCode = await runProgram(modules, argv);
    return { exitCode, stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

afterEach(() => {
  process.exitCode = undefined;
});

describe("the jobtasks command line", () => {
  it("reports an unknown option in its own words, with the nearest option of that command", async () => {
    const result = await run(["serve", "--prot", "3100"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^unknown option --prot; did you mean --port\?\n/);
    expect(result.stderr).toContain("Usage: jobtasks serve [options]");
    expect(result.stderr).toContain('Run "jobtasks serve --help" for its options.');
    expect(result.stderr).not.toContain("error:");
  });

  it("suggests the nearest command for a mistyped one", async () => {
    const result = await run(["sevre"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^unknown command "sevre"; did you mean serve\?/);
  });

  it("names a missing --config without starting anything", async () => {
    const result = await run(["check"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^--config <file> is required\nUsage: jobtasks check/);
  });

  it("prints help per command: serve --help lists serve's own options and exits 0", async () => {
    const result = await run(["serve", "--help"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("Usage: jobtasks serve [options]");
    for (const option of ["--config <file>", "--port <port>", "--host <host>", "--stdio"])
      expect(result.stdout).toContain(option);
    expect(result.stdout).not.toContain("--api-port");
  });

  it("has help for every registered command, and lists them all in the program's help", async () => {
    const overview = await run(["--help"]);
    expect(overview.exitCode).toBe(0);
    for (const module of commandModules) {
      const name = module.build().name();
      expect(overview.stdout).toContain(`  ${name} `);
      const help = await run([name, "--help"]);
      expect(help.exitCode, name).toBe(0);
      expect(help.stdout, name).toContain(`Usage: jobtasks ${name}`);
    }
  });

  it("gives the client commands' usage mistakes exit code 4, as their other client errors", async () => {
    const missing = await run(["call"]);
    expect(missing.exitCode).toBe(4);
    expect(missing.stderr).toMatch(/^missing <url-or-tool>\nUsage: jobtasks call/);
    const typo = await run(["task", "get", "http://127.0.0.1:1/mcp", "jt1.x", "--jsno"]);
    expect(typo.exitCode).toBe(4);
    expect(typo.stderr).toMatch(/^unknown option --jsno; did you mean --json\?\nUsage: jobtasks task get/);
    const badUrl = await run(["watch", "localhost:3000", "jt1.x"]);
    expect(badUrl.exitCode).toBe(4);
    expect(badUrl.stderr).toMatch(/^"localhost:3000": expected an http:\/\/ or https:\/\/ URL/);
  });

  it("a server that cannot be reached is a client error (exit 4) naming the URL and the reason", async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const result = await run(["call", `http://127.0.0.1:${port}/mcp`, "demo_pipeline"]);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toMatch(new RegExp(`^cannot connect to http://127\\.0\\.0\\.1:${port}/mcp: .*ECONNREFUSED`));
  });

  it("prints the version with --version and -v", async () => {
    for (const flag of ["--version", "-v"]) {
      const result = await run([flag]);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/^\d+\.\d+\.\d+/);
    }
  });

  it("runs a command that is only added to the list of modules", async () => {
    const ran: string[] = [];
    const extra: CommandModule = {
      usageExitCode: 4,
      build: () =>
        new Command("hello").option("--name <name>").action((flags: { name?: string }) => {
          ran.push(flags.name ?? "");
        }),
    };
    expect((await run(["hello", "--name", "world"], [...commandModules, extra])).exitCode).toBe(0);
    expect(ran).toEqual(["world"]);
    // Its own usage exit code, not the server commands' 1.
    const mistake = await run(["hello", "--nmae", "x"], [...commandModules, extra]);
    expect(mistake.exitCode).toBe(4);
    expect(mistake.stderr).toMatch(/^unknown option --nmae; did you mean --name\?/);
  });
});
