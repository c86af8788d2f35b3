import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { cliEnvironment, startCliHttpServer } from "./support/cli-process.js";
import { resolveExactlyNode22 } from "./support/conformance-suite.js";
import { Cleanup, randomSecret } from "./support/in-process-server.js";
import { rawResult } from "./support/raw-rpc.js";

/**
 * `jobtasks serve` on Node 22 with telemetry on restarts itself in place with async context frames (the
 * same process id, still serving), unless the operator chose either way in NODE_OPTIONS; without telemetry
 * it starts as it was started. Run with a real Node 22 whichever Node runs the suite (installed when needed).
 */

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

let node22: string;
beforeAll(async () => {
  node22 = await resolveExactlyNode22();
}, 300_000);

const restartedLine = /^restarted with --experimental-async-context-frame/;

function configFile(metrics: boolean): string {
  const directory = mkdtempSync(join(tmpdir(), "jobtasks-context-frames-"));
  cleanup.defer(async () => rmSync(directory, { recursive: true, force: true }));
  const file = join(directory, "jobtasks.config.yaml");
  writeFileSync(
    file,
    [
      ...(metrics ? ["server:", "  metrics: {}"] : []),
      "adapters:",
      "  - name: demo",
      "    kind: demo",
      "    options:",
      "      baseUrl: http://127.0.0.1:9",
    ].join("\n"),
  );
  return file;
}

async function serveOnNode22(metrics: boolean, extra: Record<string, string> = {}) {
  const server = await startCliHttpServer({
    node: node22,
    config: configFile(metrics),
    env: cliEnvironment({ JOBTASKS_SECRET: randomSecret(), ...extra }),
  });
  cleanup.defer(() => server.close());
  const entries = server
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg: string; pid: number });
  // Still an MCP server, whichever way it started.
  const listed = await rawResult(server.url, "tools/list", {});
  expect((listed["tools"] as Array<{ name: string }>).map((tool) => tool.name)).toContain("demo_pipeline");
  return { server, entries };
}

describe("jobtasks serve on Node 22", () => {
  it("restarts with async context frames when telemetry is on: the same process, saying so once", async () => {
    const { server, entries } = await serveOnNode22(true);
    const restarted = entries.filter((entry) => restartedLine.test(entry.msg));
    expect(restarted).toHaveLength(1);
    expect(restarted[0]!.pid).toBe(server.child.pid);
    expect((await fetch(new URL("/metrics", server.url))).status).toBe(200);
  });

  it("leaves an operator's choice alone, and a server without telemetry as it started", async () => {
    for (const nodeOptions of ["--no-experimental-async-context-frame", "--experimental-async-context-frame"]) {
      const { entries } = await serveOnNode22(true, { NODE_OPTIONS: nodeOptions });
      expect(entries.filter((entry) => restartedLine.test(entry.msg) || /NODE_OPTIONS=/.test(entry.msg))).toEqual([]);
    }
    const { entries } = await serveOnNode22(false);
    expect(entries.filter((entry) => restartedLine.test(entry.msg))).toEqual([]);
  });
});
