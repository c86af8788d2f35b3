import { execFile } from "node:child_process";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { cliBin, cliEnvironment } from "./support/cli-process.js";

/** examples/minimal-adapter as its README says to use it: `jobtasks check` loads it by `module:` and accepts it. */

const run = promisify(execFile);
const example = fileURLToPath(new URL("../examples/minimal-adapter/", import.meta.url));
const secret = "an-example-secret-that-is-long-enough-0123456789";

async function check(config: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cliBin, "check", "--config", config], {
      env: cliEnvironment({ JOBTASKS_SECRET: secret }),
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe("examples/minimal-adapter", () => {
  it("passes jobtasks check, loaded by module:, and lists its tool", async () => {
    const { code, output } = await check(join(example, "jobtasks.config.yaml"));
    expect(code).toBe(0);
    expect(output).toContain("run_job");
  });

  it("stops naming the option when pollsToFinish is not a positive integer", async () => {
    // The same module, beside a config of our own with a bad option.
    const directory = await mkdtemp(join(tmpdir(), "minimal-adapter-"));
    try {
      await symlink(join(example, "dist"), join(directory, "dist"));
      await writeFile(
        join(directory, "jobtasks.config.yaml"),
        "adapters:\n  - name: memory\n    module: ./dist/index.js\n    options:\n      pollsToFinish: 0\n",
      );
      const { code, output } = await check(join(directory, "jobtasks.config.yaml"));
      expect(code).toBe(1);
      expect(output).toContain("adapters[0].options.pollsToFinish");
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
