import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const cli = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

async function jobtasks(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("the new adapter command", () => {
  it("writes the package into --dir and lists what it wrote", async () => {
    const folder = await mkdtemp(join(tmpdir(), "jobtasks-new-"));
    folders.push(folder);
    const { code, stdout } = await jobtasks(
      ["new", "adapter", "build-queue", "--dir", join(folder, "adapter")],
      folder,
    );
    expect(code).toBe(0);
    expect(stdout).toContain("src/build-queue-adapter.ts");
    expect(stdout).toContain("src/approval.ts");
    // Outside a checkout, before anything is published, the one way to get the packages.
    expect(stdout).toContain("install them from the tarballs of jobtasks' `pnpm pack:all`");
    expect((await readdir(join(folder, "adapter", "src"))).sort()).toContain("map-build-queue-status.test.ts");
  });

  it("defaults to a folder named after the kind", async () => {
    const folder = await mkdtemp(join(tmpdir(), "jobtasks-new-"));
    folders.push(folder);
    expect((await jobtasks(["new", "adapter", "queue"], folder)).code).toBe(0);
    expect(await readdir(join(folder, "queue"))).toContain("package.json");
  });

  it("refuses a bad kind or a missing one with the usage, writing nothing", async () => {
    const folder = await mkdtemp(join(tmpdir(), "jobtasks-new-"));
    folders.push(folder);
    const bad = await jobtasks(["new", "adapter", "Not_A_Kind"], folder);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("is not a kind");
    const missing = await jobtasks(["new", "adapter"], folder);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Usage: jobtasks new adapter [options] <kind>");
    expect(await readdir(folder)).toEqual([]);
  });
});
