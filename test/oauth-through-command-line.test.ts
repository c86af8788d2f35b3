import { afterEach, describe, expect, it } from "vitest";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliEnvironment, startCliHttpServer } from "./support/cli-process.js";
import { Cleanup } from "./support/in-process-server.js";
import { rawCall } from "./support/raw-rpc.js";
import { startOidcTestProvider } from "./support/oidc-test-provider.js";
import { withMutatedSignature } from "./support/forge-jwt.js";

/**
 * `jobtasks serve` with `server.auth.mode: oauth`, as users run it (the bundled command line, a config
 * file): it verifies the provider's tokens, and no token, good or refused, appears in its log even at
 * trace level.
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe("jobtasks serve with OAuth", () => {
  it("serves callers with the provider's tokens and never logs a token", async () => {
    const provider = cleanup.add(await startOidcTestProvider());
    const directory = await mkdtemp(join(tmpdir(), "jobtasks-oauth-"));
    const config = join(directory, "jobtasks.config.yaml");
    await writeFile(
      config,
      [
        "server:",
        "  auth:",
        "    mode: oauth",
        `    issuer: ${provider.issuer}`,
        "    requiredScopes: [jobs:run]",
        "adapters:",
        "  - name: demo",
        "    kind: rest",
        "    options:",
        "      preset: demo-api",
        "      baseUrl: http://127.0.0.1:9",
        "",
      ].join("\n"),
    );
    const server = cleanup.add(
      await startCliHttpServer({
        config,
        env: cliEnvironment({
          JOBTASKS_LOG_LEVEL: "trace",
          JOBTASKS_SECRET_FILE: join(directory, "secret"),
        }),
      }),
    );
    const good = await provider.token(provider.agent, { resource: server.url, scope: "jobs:run" });
    const listed = await rawCall(server.url, "tools/list", {}, { token: good });
    expect(listed.httpStatus).toBe(200);
    expect(listed.body?.result?.["tools"].map((tool: { name: string }) => tool.name)).toContain("demo_pipeline");
    const bad = withMutatedSignature(good);
    expect((await rawCall(server.url, "tools/list", {}, { token: bad })).httpStatus).toBe(401);
    const narrow = await provider.token(provider.agent, { resource: server.url, scope: "other:run" });
    expect((await rawCall(server.url, "tools/list", {}, { token: narrow })).httpStatus).toBe(403);
    const metadata = await fetch(`${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp`);
    expect(await metadata.json()).toMatchObject({ resource: server.url, authorization_servers: [provider.issuer] });

    const log = server.stderr();
    expect(log).toContain(`"auth":"OAuth access tokens of ${provider.issuer} for ${server.url}"`);
    expect(log).toContain('"msg":"request refused"');
    for (const token of [good, bad, narrow]) {
      expect(log).not.toContain(token);
      // Not even the signature alone.
      expect(log).not.toContain(token.split(".")[2]);
    }
  }, 60_000);
});
