import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as plain from "./index.js";

/**
 * An application may bundle @jobtasks/core minified (for a Lambda, say), which renames its classes, while an
 * adapter package brings a copy of its own. Error names and `instanceof` across the two copies must not
 * depend on the names a minifier leaves.
 */

type Core = typeof plain;
let workspace: string;
let minified: Core;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "jobtasks-core-minified-"));
  const outfile = join(workspace, "core.min.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("./index.ts", import.meta.url))],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    outfile,
    logLevel: "error",
  });
  minified = (await import(pathToFileURL(outfile).href)) as Core;
});

afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

describe("the core's errors, bundled minified", () => {
  it("the minifier renamed the classes (else this test would prove nothing)", () => {
    expect(minified.UpstreamError.name).not.toBe("UpstreamError");
  });

  it("keep their names", () => {
    expect(new minified.UpstreamError("HTTP 503").name).toBe("UpstreamError");
    expect(new minified.OutcomeUnknownError("lost").name).toBe("OutcomeUnknownError");
    expect(new minified.AdapterConfigError("token", "is required").name).toBe("AdapterConfigError");
    expect(new minified.InvalidToolInputError("ref", "is required").name).toBe("InvalidToolInputError");
    expect(new minified.JobNotFoundError("gone").name).toBe("JobNotFoundError");
    expect(new minified.JobtasksError("any").name).toBe("JobtasksError");
  });

  it("are told apart with instanceof by the plain copy, and the other way round", () => {
    const lost = new minified.OutcomeUnknownError("lost", { httpStatus: 502 });
    expect(lost).toBeInstanceOf(plain.OutcomeUnknownError);
    expect(lost).toBeInstanceOf(plain.UpstreamError);
    expect(lost).toBeInstanceOf(plain.JobtasksError);
    expect(lost).not.toBeInstanceOf(plain.JobNotFoundError);
    expect(new minified.AdapterConfigError("token", "is required")).toBeInstanceOf(plain.ConfigError);
    expect(new minified.UpstreamError("HTTP 503")).not.toBeInstanceOf(plain.OutcomeUnknownError);

    const gone = new plain.JobNotFoundError("gone");
    expect(gone).toBeInstanceOf(minified.JobNotFoundError);
    expect(gone).toBeInstanceOf(minified.JobtasksError);
    expect(gone).not.toBeInstanceOf(minified.UpstreamError);
    expect(new plain.InvalidToolInputError("ref", "is required")).toBeInstanceOf(minified.InvalidToolInputError);
  });

  it("a subclass of an application's own keeps working: its own instanceof, and its parent's brand", () => {
    class RateLimited extends minified.UpstreamError {}
    const error = new RateLimited("slow down", { httpStatus: 429 });
    expect(error).toBeInstanceOf(RateLimited);
    expect(error).toBeInstanceOf(plain.UpstreamError);
    expect(new minified.UpstreamError("HTTP 503")).not.toBeInstanceOf(RateLimited);
  });
});
