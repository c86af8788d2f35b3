import { mkdtemp, readFile, readdir, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "@jobtasks/core";
import { resolveSecret, secretFilePath } from "./secret.js";

async function emptyConfigHome() {
  const home = await mkdtemp(join(tmpdir(), "jobtasks-secret-"));
  return { XDG_CONFIG_HOME: home, HOME: home };
}

describe("resolveSecret", () => {
  it("prefers JOBTASKS_SECRET and reads previous secrets for rotation", async () => {
    const resolved = await resolveSecret({ JOBTASKS_SECRET: "s".repeat(40), JOBTASKS_PREVIOUS_SECRETS: " old-one , ,old-two" });
    expect(resolved).toEqual({ secret: "s".repeat(40), previousSecrets: ["old-one", "old-two"], source: "JOBTASKS_SECRET", generated: false });
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
    const environment = { ...(await emptyConfigHome()), JOBTASKS_SECRET_FILE: join(tmpdir(), `jobtasks-secret-${process.pid}-${Date.now()}`) };
    expect(secretFilePath(environment)).toBe(environment.JOBTASKS_SECRET_FILE);
    const resolved = await resolveSecret(environment);
    expect((await readFile(environment.JOBTASKS_SECRET_FILE, "utf8")).trim()).toBe(resolved.secret);
  });

  it("refuses a kept file that holds no usable secret instead of replacing it", async () => {
    const environment = { JOBTASKS_SECRET_FILE: join(await mkdtemp(join(tmpdir(), "jobtasks-secret-")), "secret") };
    await writeFile(environment.JOBTASKS_SECRET_FILE, "short\n");
    await expect(resolveSecret(environment)).rejects.toBeInstanceOf(ConfigError);
    expect(await readFile(environment.JOBTASKS_SECRET_FILE, "utf8")).toBe("short\n");
  });
});
