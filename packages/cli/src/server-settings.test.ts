import { describe, expect, it } from "vitest";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@jobtasks/core";
import { TaskIdSealer, createSilentLogger } from "@jobtasks/server";
import { buildTaskService, readServerSettings, servesBeyondLoopbackWithoutTokens } from "./server-settings.js";
import { loadConfig, type LoadedConfig } from "./load-config.js";
import { configFileSchema } from "./config-schema.js";
import { nodeRequirementProblem } from "./adapter-registry.js";
import { exampleConfigEnvironment, examplesNeedingNewerNode } from "./test-support/example-config-environment.js";

const config = { server: { logLevel: "info" }, adapters: [] } as unknown as LoadedConfig;

describe("readServerSettings", () => {
  it("listens on loopback unless told otherwise; an empty HOST or PORT counts as unset", () => {
    expect(readServerSettings(config, {})).toMatchObject({
      host: "127.0.0.1",
      port: 3000,
      logLevel: "info",
      tokens: undefined,
    });
    expect(readServerSettings(config, { HOST: "", PORT: "" })).toMatchObject({ host: "127.0.0.1", port: 3000 });
    expect(readServerSettings(config, { HOST: "0.0.0.0", PORT: "8080" })).toMatchObject({
      host: "0.0.0.0",
      port: 8080,
    });
    expect(readServerSettings(config, { HOST: "0.0.0.0" }, { host: "::1", port: 0 })).toMatchObject({
      host: "::1",
      port: 0,
    });
  });

  it("logs warnings and errors only over stdio, unless JOBTASKS_LOG_LEVEL or server.logLevel asks for a level", () => {
    const unset = { server: {}, adapters: [] } as unknown as LoadedConfig;
    expect(readServerSettings(unset, {}).logLevel).toBe("info");
    expect(readServerSettings(unset, {}, { stdio: true }).logLevel).toBe("warn");
    expect(readServerSettings(unset, { JOBTASKS_LOG_LEVEL: "debug" }, { stdio: true }).logLevel).toBe("debug");
    expect(readServerSettings(config, {}, { stdio: true }).logLevel).toBe("info");
    // --log-level comes first, and a bad one is refused naming the flag.
    expect(
      readServerSettings(config, { JOBTASKS_LOG_LEVEL: "error" }, { stdio: true, logLevel: "debug" }).logLevel,
    ).toBe("debug");
    expect(() => readServerSettings(config, {}, { logLevel: "loud" })).toThrow(/--log-level/);
  });

  it("refuses a bad PORT, log level or token list, naming the variable", () => {
    expect(() => readServerSettings(config, { PORT: "http" })).toThrow(ConfigError);
    expect(() => readServerSettings(config, { JOBTASKS_LOG_LEVEL: "verbose" })).toThrow(/JOBTASKS_LOG_LEVEL/);
    expect(() => readServerSettings(config, { JOBTASKS_AUTH_TOKENS: "nobody" })).toThrow(/JOBTASKS_AUTH_TOKENS/);
  });

  it("warns of a server beyond loopback without tokens, and never of one on a loopback address", () => {
    const without = (host: string) => servesBeyondLoopbackWithoutTokens(readServerSettings(config, { HOST: host }));
    expect(["127.0.0.1", "127.0.0.2", "127.10.20.30", "localhost", "::1"].map(without)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(["0.0.0.0", "::", "192.0.2.10"].map(without)).toEqual([true, true, true]);
    expect(
      servesBeyondLoopbackWithoutTokens(
        readServerSettings(config, { HOST: "0.0.0.0", JOBTASKS_AUTH_TOKENS: "alice:alice-token-0123456789" }),
      ),
    ).toBe(false);
  });
});

describe("buildTaskService over the shipped example configs", () => {
  it("serves every one to clients without the tasks extension with handles (task_status, task_answer, task_cancel)", async () => {
    const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));
    const files: string[] = [];
    for (const example of await readdir(join(repositoryRoot, "examples"))) {
      // The conformance fixtures serve the answers the official suite checks (wait mode); see their README.
      if (example.includes(".") || example === "conformance") continue;
      for (const file of await readdir(join(repositoryRoot, "examples", example)))
        if (file.endsWith(".config.yaml")) files.push(join(repositoryRoot, "examples", example, file));
    }
    expect(files.length).toBeGreaterThanOrEqual(7);
    const environment = exampleConfigEnvironment;
    for (const file of files) {
      // Refused on a Node too old for its kind's client; load-config.test.ts checks that refusal.
      const kind = examplesNeedingNewerNode[file.slice(repositoryRoot.length)];
      if (kind !== undefined && nodeRequirementProblem(kind) !== undefined) continue;
      const config = await loadConfig(file, environment);
      const service = buildTaskService(
        config,
        new TaskIdSealer({ secret: "example-configs-secret-0123456789abcdef" }),
        createSilentLogger(),
      );
      expect(service.clientsWithoutTasks, file).toBe("handles");
      const tools = service.listTools(false);
      expect(
        tools.slice(-3).map((tool) => tool.name),
        file,
      ).toEqual(["task_status", "task_answer", "task_cancel"]);
      for (const tool of tools.slice(0, -3)) expect(tool, `${file}: ${tool.name}`).not.toHaveProperty("outputSchema");
      await service.close();
    }
  });
});

describe("server.clientsWithoutTasks", () => {
  it("defaults to handles and refuses anything but handles, wait or refuse, naming the field", () => {
    const adapters = [{ name: "demo", kind: "demo" }];
    expect(configFileSchema.parse({ adapters }).server.clientsWithoutTasks).toBe("handles");
    expect(
      configFileSchema.parse({ server: { clientsWithoutTasks: "refuse" }, adapters }).server.clientsWithoutTasks,
    ).toBe("refuse");
    const refused = configFileSchema.safeParse({ server: { clientsWithoutTasks: "sometimes" }, adapters });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(["server", "clientsWithoutTasks"]);
  });
});

describe("server.tracing", () => {
  it("leaves polls answered from memory untraced unless pollsFromMemory asks, and refuses a value that is not a boolean", async () => {
    const adapters = [{ name: "demo", kind: "demo", options: { baseUrl: "http://127.0.0.1:1" } }];
    const sealer = new TaskIdSealer({ secret: "tracing-settings-secret-0123456789abcdef" });
    const build = (server: Record<string, unknown>) =>
      buildTaskService(
        { ...configFileSchema.parse({ server, adapters }), adapters: config.adapters } as unknown as LoadedConfig,
        sealer,
        createSilentLogger(),
      );
    const byDefault = build({});
    expect(byDefault.telemetry.tracesPollsFromMemory).toBe(false);
    const everyPoll = build({ tracing: { pollsFromMemory: true } });
    expect(everyPoll.telemetry.tracesPollsFromMemory).toBe(true);
    await Promise.all([byDefault.close(), everyPoll.close()]);
    const refused = configFileSchema.safeParse({ server: { tracing: { pollsFromMemory: "yes" } }, adapters });
    expect(refused.error?.issues[0]?.path).toEqual(["server", "tracing", "pollsFromMemory"]);
  });
});

describe("server.auth", () => {
  const adapters = [{ name: "demo", kind: "demo" }];
  const issuesOf = (auth: unknown) =>
    configFileSchema.safeParse({ server: { auth }, adapters }).error?.issues.map((issue) => ({
      path: issue.path.join("."),
      message: issue.message,
    }));

  it("oauth needs an issuer, and takes only https URLs (http on loopback), clock skew up to 60 s, asymmetric algorithms", () => {
    expect(issuesOf({ mode: "oauth" })).toEqual([
      { path: "server.auth.issuer", message: "oauth needs the issuer of the access tokens" },
    ]);
    expect(issuesOf({ mode: "oauth", issuer: "http://idp.example.com/realms/eng" })?.[0]).toEqual({
      path: "server.auth.issuer",
      message: "use an https URL (http only for a loopback host)",
    });
    expect(issuesOf({ mode: "oauth", issuer: "http://127.0.0.1:8080" })).toBeUndefined();
    expect(issuesOf({ mode: "oauth", issuer: "https://idp.example.com", clockSkewSeconds: 120 })?.[0]?.path).toBe(
      "server.auth.clockSkewSeconds",
    );
    expect(issuesOf({ mode: "oauth", issuer: "https://idp.example.com", algorithms: ["HS256"] })?.[0]?.path).toBe(
      "server.auth.algorithms.0",
    );
    expect(
      issuesOf({ mode: "oauth", issuer: "https://idp.example.com", requiredScopes: ["two words"] })?.[0]?.path,
    ).toBe("server.auth.requiredScopes.0");
  });

  it("refuses OAuth fields in tokens mode, and token scopes in oauth mode", () => {
    expect(issuesOf({ issuer: "https://idp.example.com" })).toEqual([
      { path: "server.auth.issuer", message: 'applies to mode "oauth" only' },
    ]);
    expect(issuesOf({ mode: "oauth", issuer: "https://idp.example.com", tokenScopes: { alice: ["a"] } })).toEqual([
      { path: "server.auth.tokenScopes", message: 'applies to mode "tokens" only' },
    ]);
  });

  it("gives the HTTP server OAuth settings, and refuses static tokens beside them", () => {
    const oauth = configFileSchema.parse({
      server: { auth: { mode: "oauth", issuer: "https://idp.example.com", requiredScopes: ["mcp"] } },
      adapters,
    }) as unknown as LoadedConfig;
    const settings = readServerSettings(oauth, { HOST: "0.0.0.0" });
    expect(settings.http).toEqual({
      oauth: {
        issuer: "https://idp.example.com",
        clockSkewSeconds: 30,
        requiredScopes: ["mcp"],
        scopeClaims: ["scope", "scp"],
      },
    });
    // OAuth counts as authentication: no warning about an open port.
    expect(servesBeyondLoopbackWithoutTokens(settings)).toBe(false);
    expect(() => readServerSettings(oauth, { JOBTASKS_AUTH_TOKENS: "alice:alice-token-0123456789" })).toThrow(
      /JOBTASKS_AUTH_TOKENS: server.auth.mode is "oauth"/,
    );
  });

  it("refuses scopes for a token name JOBTASKS_AUTH_TOKENS does not have, naming the field", () => {
    const tokens = configFileSchema.parse({
      server: { auth: { tokenScopes: { bob: ["jobs:run"] } } },
      adapters,
    }) as unknown as LoadedConfig;
    expect(() => readServerSettings(tokens, { JOBTASKS_AUTH_TOKENS: "alice:alice-token-0123456789" })).toThrow(
      /server\.auth\.tokenScopes\.bob: JOBTASKS_AUTH_TOKENS has no token named "bob"/,
    );
    expect(
      readServerSettings(tokens, { JOBTASKS_AUTH_TOKENS: "bob:bob-token-0123456789abc" }).http.tokenScopes,
    ).toEqual({ bob: ["jobs:run"] });
  });
});

describe("docs/oauth.md", () => {
  it("shows only server.auth settings the schema takes", async () => {
    const { readFile } = await import("node:fs/promises");
    const { parse } = await import("yaml");
    const text = await readFile(fileURLToPath(new URL("../../../docs/oauth.md", import.meta.url)), "utf8");
    const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const block of blocks) {
      // A block inside a list item is indented as its first line is.
      const indent = /^ */.exec(block)![0].length;
      const text = block.replace(new RegExp(`^ {${indent}}`, "gm"), "");
      const parsed = configFileSchema.safeParse({
        ...(parse(text.replaceAll("${JOBTASKS_INTROSPECTION_SECRET}", "s")) as object),
        adapters: [{ name: "demo", kind: "demo" }],
      });
      expect(parsed.error?.issues, block).toBeUndefined();
    }
  });
});
