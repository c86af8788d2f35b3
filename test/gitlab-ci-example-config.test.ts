import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { cliBin, cliEnvironment } from "./support/cli-process.js";

/** examples/gitlab-ci as its README says to use it: `jobtasks check` accepts it, and names the missing token. */

const run = promisify(execFile);
const config = fileURLToPath(new URL("../examples/gitlab-ci/jobtasks.config.yaml", import.meta.url));
const secret = "an-example-secret-that-is-long-enough-0123456789";

async function check(env: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cliBin, "check", "--config", config], {
      env: cliEnvironment({ JOBTASKS_SECRET: secret, ...env }),
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe("examples/gitlab-ci", () => {
  it("passes jobtasks check with a token and lists the three tools", async () => {
    const { code, output } = await check({ GITLAB_TOKEN: "glpat-exampleTokenForTheCheck01" });
    expect(code).toBe(0);
    for (const tool of ["create_pipeline", "watch_pipeline", "retry_pipeline"]) expect(output).toContain(tool);
    expect(output).not.toContain("glpat-exampleTokenForTheCheck01");
  });

  it("stops naming the token option when GITLAB_TOKEN is not set", async () => {
    const { code, output } = await check({});
    expect(code).toBe(1);
    expect(output).toContain("adapters[0].options.token");
  });

  it("stops naming the project when GITLAB_PROJECT is not a project", async () => {
    const { code, output } = await check({
      GITLAB_TOKEN: "glpat-exampleTokenForTheCheck01",
      GITLAB_PROJECT: "not a project",
    });
    expect(code).toBe(1);
    expect(output).toContain("adapters[0].options.projects[0]");
  });
});
