import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Node gets the core's zod as one cached CommonJS file found next to dist/zod-node.js; an application that
 * bundles its server (for a Lambda, say) would lose that file. A bundler takes package.json's "module"
 * condition instead, the plain re-export of zod, and bundles zod as usual: the application works, and
 * holds one zod.
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
  it("gets zod bundled in, not the file the core runs on Node, and its schemas parse", async () => {
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
    expect(text).not.toContain("zod.cjs");
    expect(text).not.toContain("runCachedCommonJs");
    const run = spawnSync(process.execPath, [outfile], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({
      same: true,
      message: expect.stringContaining("baseUrl"),
    });
  });
});
