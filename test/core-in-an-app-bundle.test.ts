import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * An application that bundles its server (for a Lambda, say) bundles @jobtasks/core and the zod it
 * re-exports as it would any package: the application works, and holds one zod.
 */

const testDirectory = fileURLToPath(new URL(".", import.meta.url));
let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "jobtasks-app-bundle-"));
});
afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

describe("an application that bundles @jobtasks/core", () => {
  it("gets zod bundled in, one copy for `z` and `@jobtasks/core/zod`, and its schemas parse", async () => {
    const outfile = join(workspace, "app.mjs");
    await build({
      stdin: {
        contents: [
          'import { z, configErrorFromIssues } from "@jobtasks/core";',
          'import * as whole from "@jobtasks/core/zod";',
          "const parsed = z.object({ baseUrl: z.url() }).safeParse({ baseUrl: 'not a url' });",
          "console.log(JSON.stringify({ same: whole.z === z, message: configErrorFromIssues(parsed.error).message }));",
        ].join("\n"),
        resolveDir: testDirectory,
        sourcefile: "app.ts",
      },
      bundle: true,
      format: "esm",
      platform: "node",
      outfile,
      logLevel: "error",
    });
    const text = await readFile(outfile, "utf8");
    // Nothing left to import at run time: zod is in the file.
    expect(text).not.toMatch(/from\s*"zod/);
    const run = spawnSync(process.execPath, [outfile], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({
      same: true,
      message: expect.stringContaining("baseUrl"),
    });
  });
});
