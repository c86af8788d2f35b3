import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The suite must fail adapters that break the contract, and fail them at the right test. A suite run that
 * fails cannot live in this process's run, so the broken harnesses run in a child vitest, reporting JSON.
 */

interface AssertionResult {
  ancestorTitles: string[];
  title: string;
  status: string;
}

const vitestEntry = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const config = fileURLToPath(new URL("./__fixtures__/broken-adapters.vitest.config.ts", import.meta.url));
let failedByHarness = new Map<string, string[]>();

beforeAll(async () => {
  const directory = mkdtempSync(join(tmpdir(), "jobtasks-testkit-"));
  const report = join(directory, "report.json");
  try {
    // Exit code 1 is expected: the broken adapters fail.
    await promisify(execFile)(
      process.execPath,
      [vitestEntry, "run", "--config", config, "--reporter=json", `--outputFile=${report}`],
      {
        cwd: dirname(config),
        env: { ...process.env, CI: "1" },
      },
    ).catch((error: { code?: number }) => {
      if (error.code !== 1) throw error;
    });
    const results = JSON.parse(readFileSync(report, "utf8")) as {
      testResults: Array<{ assertionResults: AssertionResult[] }>;
    };
    failedByHarness = new Map();
    for (const result of results.testResults.flatMap((file) => file.assertionResults)) {
      const harness = (result.ancestorTitles[0] ?? "").replace("adapter conformance: ", "");
      const failed = failedByHarness.get(harness) ?? [];
      if (result.status === "failed") failed.push(result.title);
      failedByHarness.set(harness, failed);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}, 120_000);

describe("runAdapterConformance on broken adapters", () => {
  it.each([
    // Every error leaks, the abort's included.
    [
      "leaks its token in errors",
      [
        "passes the context's AbortSignal on: an aborted signal makes doGetStatus reject",
        "raises a retryable UpstreamError when the upstream is unavailable",
        "raises JobNotFoundError for a job the upstream does not know",
        "keeps secrets out of snapshots, errors and log entries",
      ],
    ],
    ["ends on an unknown status", ['keeps the undocumented status "warming_up" non-terminal, with its raw value']],
    ["ignores the abort signal", ["passes the context's AbortSignal on: an aborted signal makes doGetStatus reject"]],
    [
      "throws the wrong errors",
      [
        "raises JobNotFoundError for a job the upstream does not know",
        "raises a retryable UpstreamError when the upstream is unavailable",
      ],
    ],
    [
      "has doRespond and doCancel but no scenarios",
      [
        "has an inputRequired scenario exactly when the adapter implements doRespond",
        "has a cancel scenario exactly when the adapter implements doCancel",
      ],
    ],
    [
      "has a malformed tool and input request",
      [
        "declares the v1 contract, a kind, and well-formed tools",
        "lists input requests for a job waiting for input, and delivers the answers",
      ],
    ],
    // Every test that reads a status gets the log entry, and fails in its afterEach.
    [
      "logs its token",
      [
        'maps "running" to working',
        "keeps secrets out of snapshots, errors and log entries",
        "passes the context's AbortSignal on: an aborted signal makes doGetStatus reject",
        "raises JobNotFoundError for a job the upstream does not know",
        "raises a retryable UpstreamError when the upstream is unavailable",
        'keeps the undocumented status "warming_up" non-terminal, with its raw value',
        "lists input requests for a job waiting for input, and delivers the answers",
        "leaves the question open after a dismissed form (cancel), so a later answer is still delivered",
      ],
    ],
    [
      "starts jobs whose references its refSchema refuses",
      ["starts a job with fake_run whose reference is JSON, fits the adapter's refSchema, and reads back at once"],
    ],
    [
      "says a dismissed form settled its question",
      ["leaves the question open after a dismissed form (cancel), so a later answer is still delivered"],
    ],
    [
      "keeps a declined gate waiting and reports nothing left open",
      ["leaves the question open after a declined gate, so a later answer is still delivered"],
    ],
    // The suite runs the adapter through withSecretRedaction, as the server does: declared, nothing leaks.
    ["logs and throws its token, declared in secrets", []],
  ])("a harness that %s fails exactly the tests that check it", (harness, expectedFailures) => {
    expect(failedByHarness.has(harness), `no results for "${harness}"`).toBe(true);
    expect([...(failedByHarness.get(harness) ?? [])].sort()).toEqual([...expectedFailures].sort());
  });
});
