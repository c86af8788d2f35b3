import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { homedir } from "node:os";
import { ConfigError } from "@jobtasks/core";
import { minimumSecretLength } from "@jobtasks/server";

export interface ResolvedSecret {
  secret: string;
  previousSecrets: string[];
  /** Where it came from, for the start-up log line (never the secret itself). */
  source: string;
  /** True when this start generated it. */
  generated: boolean;
}

/** Where a generated secret is kept: the user's config directory (XDG_CONFIG_HOME on Linux). */
export function secretFilePath(environment: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = environment["JOBTASKS_SECRET_FILE"];
  if (configured) return configured;
  return join(configDirectory(environment), "jobtasks", "secret");
}

/** The platform's per-user config directory, read from the given environment (not only process.env). */
function configDirectory(environment: Readonly<Record<string, string | undefined>>): string {
  const home = environment["HOME"] || homedir();
  if (process.platform === "win32") return environment["APPDATA"] || join(home, "AppData", "Roaming");
  if (process.platform === "darwin") return join(home, "Library", "Preferences");
  return environment["XDG_CONFIG_HOME"] || join(home, ".config");
}

/**
 * JOBTASKS_PREVIOUS_SECRETS: older secrets, comma-separated, still accepted for opening ids. A bad entry is
 * named by its position in the list as written (empty entries count), never by its value.
 */
export function readPreviousSecrets(environment: Readonly<Record<string, string | undefined>>): string[] {
  const secrets: string[] = [];
  (environment["JOBTASKS_PREVIOUS_SECRETS"] ?? "").split(",").forEach((entry, index) => {
    const secret = entry.trim();
    if (secret === "") return;
    if (secret.length < minimumSecretLength) {
      throw new ConfigError(
        `JOBTASKS_PREVIOUS_SECRETS (entry ${index + 1})`,
        `each secret must be at least ${minimumSecretLength} characters long`,
      );
    }
    secrets.push(secret);
  });
  return secrets;
}

/**
 * The current secret must be able to become a previous one: JOBTASKS_PREVIOUS_SECRETS splits on commas,
 * so a secret with a comma would be cut in two there, and its task ids would stop opening on rotation.
 */
export function checkRotatable(secret: string, source: string): string {
  if (secret.includes(",")) {
    throw new ConfigError(
      source,
      "must not contain a comma: JOBTASKS_PREVIOUS_SECRETS separates secrets with commas, so this one could never be rotated into it",
    );
  }
  return secret;
}

/**
 * The task-id secret: JOBTASKS_SECRET when set (with JOBTASKS_PREVIOUS_SECRETS, comma-separated, still
 * accepted for opening), otherwise one generated once and kept in the config directory, so that a restart
 * still opens the task ids handed out before.
 */
export async function resolveSecret(
  environment: Readonly<Record<string, string | undefined>> = process.env,
): Promise<ResolvedSecret> {
  const previousSecrets = readPreviousSecrets(environment);
  const fromEnvironment = environment["JOBTASKS_SECRET"];
  if (fromEnvironment)
    return {
      secret: checkRotatable(fromEnvironment, "JOBTASKS_SECRET"),
      previousSecrets,
      source: "JOBTASKS_SECRET",
      generated: false,
    };

  const file = secretFilePath(environment);
  const kept = await readKeptSecret(file);
  if (kept !== undefined) {
    if (kept.length < minimumSecretLength) {
      throw new ConfigError(
        file,
        `holds no usable secret (fewer than ${minimumSecretLength} characters); delete the file or set JOBTASKS_SECRET`,
      );
    }
    return { secret: checkRotatable(kept, file), previousSecrets, source: file, generated: false };
  }
  const secret = randomBytes(32).toString("base64url");
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // Not written where another user could replace it with a secret of their choosing.
  await checkSecretFolder(file, currentUserId());
  // Written whole under a private name, then linked into place: link() refuses an existing file, so two
  // processes starting at once agree on one secret, and nobody ever reads a half-written file.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(draft, `${secret}\n`, { mode: 0o600, flag: "wx" });
  try {
    await link(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return resolveSecret(environment);
    throw error;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
  return { secret, previousSecrets, source: file, generated: true };
}

/**
 * The secret kept in a file, undefined when there is none; any other problem names the file. The rule is
 * ssh's for a private key, because whoever reads the file can forge task ids for any caller, and whoever can
 * change or replace it chooses the secret:
 * - the file belongs to the user running the server, or to root;
 * - no group or other permission bit is set on it (mode 0600 or 0400);
 * - its folder belongs to that user or to root, and neither its group nor others may write to it (a sticky
 *   folder such as /tmp included, as ssh has it).
 * Each refusal names the file and says which chown or chmod fixes it. `userId`: the user the server runs as
 * (the process's own, undefined where the platform has none).
 */
export async function readKeptSecret(file: string, userId = currentUserId()): Promise<string | undefined> {
  try {
    const status = await stat(file);
    // Windows has no such owners and permission bits: the file lives in the user's profile, private by default.
    if (status.isFile() && process.platform !== "win32") {
      checkOwner(file, status.uid, userId, (owner) => `is owned by another user (uid ${owner})`, file);
      const mode = status.mode & 0o777;
      if ((mode & 0o077) !== 0) {
        throw new ConfigError(
          file,
          `is open to other users (mode ${octal(mode)}); run chmod 600 on it, or set JOBTASKS_SECRET`,
        );
      }
      await checkSecretFolder(file, userId);
    }
    return (await readFile(file, "utf8")).trim();
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw new ConfigError(
      file,
      `cannot read the kept task-id secret (${code ?? (error as Error).message}); fix the file or set JOBTASKS_SECRET`,
    );
  }
}

/**
 * The folder of a secret file: owned by the user or root, and writable by nobody else (else they could
 * replace the file). `userId` as for readKeptSecret; exported so that a test can tell it another user.
 */
export async function checkSecretFolder(file: string, userId: number | undefined): Promise<void> {
  if (process.platform === "win32") return;
  const folder = dirname(file);
  const status = await stat(folder);
  checkOwner(
    file,
    status.uid,
    userId,
    (owner) => `is in a folder owned by another user (${folder}, uid ${owner})`,
    folder,
  );
  const mode = status.mode & 0o7777;
  if ((mode & 0o022) !== 0) {
    throw new ConfigError(
      file,
      `is in a folder other users may write to (${folder}, mode ${octal(mode)}), so they could replace it; run chmod go-w ${folder}, or keep the file in a private folder (JOBTASKS_SECRET_FILE), or set JOBTASKS_SECRET`,
    );
  }
}

/** Refuse an owner that is neither `userId` nor root; `chowned` is what the chown in the message fixes. */
function checkOwner(
  file: string,
  owner: number,
  userId: number | undefined,
  describe: (owner: number) => string,
  chowned: string,
): void {
  if (userId === undefined || owner === userId || owner === 0) return;
  throw new ConfigError(
    file,
    `${describe(owner)}, not by the user running jobtasks (uid ${userId}) or root: that user could read or change the secret; run chown ${userId} ${chowned}, or set JOBTASKS_SECRET`,
  );
}

function currentUserId(): number | undefined {
  return process.getuid?.();
}

function octal(mode: number): string {
  return mode.toString(8).padStart(4, "0");
}
