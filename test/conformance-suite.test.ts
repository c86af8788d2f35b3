import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnvironment, startCliHttpServer, type CliHttpServer } from "./support/cli-process.js";
import {
  conformanceCacheDirectory,
  conformanceSuiteVersion,
  installConformanceSuite,
  resolveNode22,
  runConformanceSuite,
} from "./support/conformance-suite.js";
import { randomSecret } from "./support/in-process-server.js";

/**
 * The official MCP conformance suite, pinned, run by its own command on Node 22 against
 * examples/conformance served by `jobtasks serve`: every 2026-07-28 server scenario, and every scenario of
 * the tasks extension. A failure the expected-failures file does not name (and only out-of-scope
 * scenarios are named there) fails the test, and so does an entry that started to pass.
 */

const exampleDirectory = fileURLToPath(new URL("../examples/conformance/", import.meta.url));
const expectedFailures = join(exampleDirectory, "conformance-expected-failures.yaml");

/**
 * The extension's scenarios. The suite runs them only by name (a spec-version filter leaves extensions
 * out). tasks-status-notifications is left out: the suite marks it pending and reports it skipped.
 */
const tasksScenarios = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
];

/** The suite's own bound is 30 s per scenario; this one only catches a run that hangs altogether. */
const runTimeoutMs = 300_000;

describe(`the MCP conformance suite ${conformanceSuiteVersion} against examples/conformance`, () => {
  let server: CliHttpServer;
  let node22: string;
  let suiteCli: string;
  const resultsDirectory = join(conformanceCacheDirectory, "results");

  beforeAll(async () => {
    // Installing Node 22 and the suite happens once per checkout; a slow registry may take minutes.
    [node22, suiteCli] = await Promise.all([resolveNode22(), installConformanceSuite()]);
    await rm(resultsDirectory, { recursive: true, force: true });
    await mkdir(resultsDirectory, { recursive: true });
    server = await startCliHttpServer({
      config: join(exampleDirectory, "jobtasks.config.yaml"),
      env: cliEnvironment({ JOBTASKS_SECRET: randomSecret() }),
    });
  }, 600_000);

  afterAll(async () => {
    await server?.close();
  });

  const suite = (args: string[]) =>
    runConformanceSuite(
      node22,
      suiteCli,
      ["server", "--url", server.url, "--expected-failures", expectedFailures, "-o", resultsDirectory, ...args],
      runTimeoutMs,
    );

  it(
    "passes every 2026-07-28 server scenario but the out-of-scope ones",
    async () => {
      const run = await suite(["--spec-version", "2026-07-28", "--suite", "all"]);
      expect(run.exitCode, `${run.summary}\n${run.output}`).toBe(0);
      expect(run.summary).toMatch(/^Total: \d+ passed/);
    },
    runTimeoutMs,
  );

  it.each(tasksScenarios)(
    "passes the tasks extension's %s",
    async (scenario) => {
      const run = await suite(["--scenario", scenario]);
      expect(run.exitCode, `${run.summary}\n${run.output}`).toBe(0);
      expect(run.summary).toMatch(/^Passed: (\d+)\/\1, 0 failed/);
    },
    runTimeoutMs,
  );
});
