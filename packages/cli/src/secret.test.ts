import { chownSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "@jobtasks/core";
import { checkSecretFolder, readKeptSecret, resolveSecret, secretFilePath } from "./secret.js";
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
    for (const attempt of [() => resolveSecret(environment), () => checkOnlySealer(environment)]) {
      const error = (await attempt().then(
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
    for (const attempt of [() => resolveSecret(environment), () => checkOnlySealer(environment)]) {
      await expect(attempt()).rejects.toMatchObject({
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
      () => resolveSecret({ JOBTASKS_SECRET_FILE: file }),
      () => checkOnlySealer({ JOBTASKS_SECRET_FILE: file }),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ option: file, message: expect.stringContaining("0644") });
    }
    await chmod(file, 0o600);
    expect((await resolveSecret({ JOBTASKS_SECRET_FILE: file })).secret).toBe("k".repeat(43));
  });

  // nobody's uid and gid on Linux; any uid that is neither the runner's nor root's would do.
  const nobody = 65534;

  it("refuses a kept secret file owned by another user, naming the file, its owner and the chown that fixes it", async () => {
    const file = join(await mkdtemp(join(temporaryRoot, "file-")), "secret");
    await writeFile(file, `${"k".repeat(43)}\n`, { mode: 0o600 });
    // Giving a file away takes root, which runs this suite here: the file then belongs to nobody, and root
    // (who can read anything) must still refuse it. As any other user the file stays the runner's, and the
    // check is told the server runs as nobody: the same rule, seen from the other side.
    const runner = process.getuid?.();
    const asRoot = runner === 0;
    if (asRoot) chownSync(file, nobody, nobody);
    const attempts = asRoot
      ? [() => resolveSecret({ JOBTASKS_SECRET_FILE: file }), () => checkOnlySealer({ JOBTASKS_SECRET_FILE: file })]
      : [() => readKeptSecret(file, nobody)];
    for (const attempt of attempts) {
      await expect(attempt()).rejects.toMatchObject({
        option: file,
        message: expect.stringMatching(/is owned by another user \(uid \d+\).*chown/),
      });
    }
    if (asRoot) {
      chownSync(file, 0, 0);
      expect((await resolveSecret({ JOBTASKS_SECRET_FILE: file })).secret).toBe("k".repeat(43));
    }
  });

  it.each([
    ["writable by everyone", 0o777],
    ["writable by everyone, even with the sticky bit", 0o1777],
    ["writable by its group", 0o770],
  ])("refuses a kept secret file in a folder %s, and generates none there", async (_case, folderMode) => {
    const folder = join(await mkdtemp(join(temporaryRoot, "folder-")), "shared");
    await mkdir(folder);
    await chmod(folder, folderMode);
    const file = join(folder, "secret");
    await writeFile(file, `${"k".repeat(43)}\n`, { mode: 0o600 });
    const octal = folderMode.toString(8).padStart(4, "0");
    for (const attempt of [
      () => resolveSecret({ JOBTASKS_SECRET_FILE: file }),
      () => checkOnlySealer({ JOBTASKS_SECRET_FILE: file }),
    ]) {
      await expect(attempt()).rejects.toMatchObject({
        option: file,
        message: expect.stringContaining(`in a folder other users may write to (${folder}, mode ${octal})`),
      });
    }
    // No kept file yet: none is generated where another user could replace it.
    const fresh = join(folder, "fresh-secret");
    await expect(resolveSecret({ JOBTASKS_SECRET_FILE: fresh })).rejects.toMatchObject({ option: fresh });
    expect(await readdir(folder)).toEqual(["secret"]);
    await chmod(folder, 0o700);
    expect((await resolveSecret({ JOBTASKS_SECRET_FILE: file })).secret).toBe("k".repeat(43));
  });

  it("refuses a kept secret file in a folder owned by another user, naming the folder, its owner and the chown that fixes it", async () => {
    const folder = join(await mkdtemp(join(temporaryRoot, "folder-")), "theirs");
    await mkdir(folder, { mode: 0o755 });
    const file = join(folder, "secret");
    await writeFile(file, `${"k".repeat(43)}\n`, { mode: 0o600 });
    // As in the test above: root gives the folder to nobody and must refuse it; any other user keeps the
    // folder and tells the check the server runs as nobody. A folder root owns is accepted for anyone.
    const runner = process.getuid?.() ?? 0;
    const asRoot = runner === 0;
    if (asRoot) chownSync(folder, nobody, nobody);
    const [owner, server] = asRoot ? [nobody, 0] : [runner, nobody];
    const attempts: Array<() => Promise<unknown>> = [() => checkSecretFolder(file, server)];
    if (asRoot) attempts.push(() => resolveSecret({ JOBTASKS_SECRET_FILE: file }));
    for (const attempt of attempts) {
      const refusal = await attempt().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(ConfigError);
      expect(refusal).toMatchObject({ option: file });
      expect((refusal as ConfigError).message).toContain(`in a folder owned by another user (${folder}, uid ${owner})`);
      expect((refusal as ConfigError).message).toContain(`run chown ${server} ${folder},`);
    }
    // The folder's own user is accepted.
    await expect(checkSecretFolder(file, owner)).resolves.toBeUndefined();
  });
});
