import { chmod, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "@jobtasks/core";
import { resolveSecret, secretFilePath } from "./secret.js";
import { checkOnlySealer } from "./server-settings.js";

// Every home and secret file of this test file lives under one temporary folder (generated secrets
// included), removed when the file is done.
let temporaryRoot: string;
beforeAll(async () => {
  temporaryRoot = await mkdtemp(join(tmpdir(), "jobtasks-secret-"));
});
afterAll(async () => {
  if (temporaryRoot) await rm(temporaryRoot, { recursive: true, force: true });
});

async function emptyConfigHome() {
  const home = await mkdtemp(join(temporaryRoot, "home-"));
  return { XDG_CONFIG_HOME: home, HOME: home };
}

describe("resolveSecret", () => {
  it("prefers JOBTASKS_SECRET and reads previous secrets for rotation", async () => {
    const [first, second] = ["o".repeat(32), "p".repeat(40)];
    const resolved = await resolveSecret({
      JOBTASKS_SECRET: "s".repeat(40),
      JOBTASKS_PREVIOUS_SECRETS: ` ${first} , ,${second}`,
    });
    expect(resolved).toEqual({
      secret: "s".repeat(40),
      previousSecrets: [first, second],
      source: "JOBTASKS_SECRET",
      generated: false,
    });
  });

  it("generates a secret once, keeps it private in the config directory, and reuses it on the next start", async () => {
    const environment = await emptyConfigHome();
    const first = await resolveSecret(environment);
    expect(first.generated).toBe(true);
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(first.source).toBe(join(environment.XDG_CONFIG_HOME, "jobtasks", "secret"));
    expect((await stat(first.source)).mode & 0o777).toBe(0o600);
    const second = await resolveSecret(environment);
    expect(second).toMatchObject({ secret: first.secret, generated: false, source: first.source });
  });

  it("agrees on one secret when several servers start at once", async () => {
    const environment = await emptyConfigHome();
    const resolved = await Promise.all(Array.from({ length: 8 }, () => resolveSecret(environment)));
    expect(new Set(resolved.map((entry) => entry.secret)).size).toBe(1);
    expect(resolved.filter((entry) => entry.generated)).toHaveLength(1);
    expect(await readdir(join(environment.XDG_CONFIG_HOME, "jobtasks"))).toEqual(["secret"]);
  });

  it("honours JOBTASKS_SECRET_FILE", async () => {
    const home = await emptyConfigHome();
    // Not the default place (<home>/jobtasks/secret), so only the variable can lead there.
    const environment = { ...home, JOBTASKS_SECRET_FILE: join(home.XDG_CONFIG_HOME, "kept-secret") };
    expect(secretFilePath(environment)).toBe(environment.JOBTASKS_SECRET_FILE);
    const resolved = await resolveSecret(environment);
    expect((await readFile(environment.JOBTASKS_SECRET_FILE, "utf8")).trim()).toBe(resolved.secret);
  });

  it("refuses a kept file that holds no usable secret instead of replacing it", async () => {
    const environment = { JOBTASKS_SECRET_FILE: join(await mkdtemp(join(temporaryRoot, "file-")), "secret") };
    await writeFile(environment.JOBTASKS_SECRET_FILE, "short\n");
    await expect(resolveSecret(environment)).rejects.toBeInstanceOf(ConfigError);
    expect(await readFile(environment.JOBTASKS_SECRET_FILE, "utf8")).toBe("short\n");
  });

  it("names JOBTASKS_PREVIOUS_SECRETS and the entry's position for a too-short previous secret", async () => {
    const environment = { JOBTASKS_SECRET: "s".repeat(40), JOBTASKS_PREVIOUS_SECRETS: `${"p".repeat(40)},short` };
    for (const attempt of [resolveSecret(environment), checkOnlySealer(environment)]) {
      const error = (await attempt.then(
        () => undefined,
        (caught: unknown) => caught,
      )) as ConfigError;
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.option).toBe("JOBTASKS_PREVIOUS_SECRETS (entry 2)");
      expect(error.message).not.toContain("JOBTASKS_SECRET ");
      expect(error.message).not.toContain("short");
    }
  });

  it("refuses a secret with a comma, which could never be rotated into JOBTASKS_PREVIOUS_SECRETS", async () => {
    const environment = { JOBTASKS_SECRET: `${"s".repeat(20)},${"t".repeat(20)}` };
    for (const attempt of [resolveSecret(environment), checkOnlySealer(environment)]) {
      await expect(attempt).rejects.toMatchObject({
        option: "JOBTASKS_SECRET",
        message: expect.stringContaining("comma"),
      });
    }
    const file = join(await mkdtemp(join(temporaryRoot, "file-")), "secret");
    await writeFile(file, `${"s".repeat(20)},${"t".repeat(20)}\n`, { mode: 0o600 });
    await expect(resolveSecret({ JOBTASKS_SECRET_FILE: file })).rejects.toMatchObject({
      option: file,
      message: expect.stringContaining("comma"),
    });
  });

  it("refuses a kept secret file that others may read, naming the file and its mode", async () => {
    const file = join(await mkdtemp(join(temporaryRoot, "file-")), "secret");
    await writeFile(file, `${"k".repeat(43)}\n`, { mode: 0o600 });
    await chmod(file, 0o644);
    for (const attempt of [
      resolveSecret({ JOBTASKS_SECRET_FILE: file }),
      checkOnlySealer({ JOBTASKS_SECRET_FILE: file }),
    ]) {
      await expect(attempt).rejects.toMatchObject({ option: file, message: expect.stringContaining("0644") });
    }
    await chmod(file, 0o600);
    expect((await resolveSecret({ JOBTASKS_SECRET_FILE: file })).secret).toBe("k".repeat(43));
  });
});
