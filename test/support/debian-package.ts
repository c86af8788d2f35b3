import { accessSync, constants } from "node:fs";
import { spawnSync } from "node:child_process";

/**
 * A program from Debian's packages that a test needs (nginx, tmux), at the first of `paths` that is
 * executable. When none is, the package is installed with apt-get: directly as root, else through `sudo -n`
 * (CI machines often allow it without a password); a fresh machine may not have the package lists yet, so
 * a failed install is tried again after `apt-get update`. A package's own service is not started by the
 * install where no init system runs: the test starts what it needs itself.
 */
export function ensureDebianProgram(packageName: string, paths: string[]): string {
  const find = () => paths.find((path) => isExecutable(path));
  const found = find();
  if (found) return found;
  const asRoot = process.getuid?.() === 0 ? [] : ["sudo", "-n"];
  const run = (args: string[]) => {
    const [command, ...rest] = [...asRoot, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", ...args];
    return spawnSync(command!, rest, { encoding: "utf8", timeout: 240_000 });
  };
  let result = run(["install", "-y", "--no-install-recommends", packageName]);
  if (result.status !== 0) {
    run(["update"]);
    result = run(["install", "-y", "--no-install-recommends", packageName]);
  }
  const installed = find();
  if (installed) return installed;
  const output = `${result.error?.message ?? ""}\n${result.stdout ?? ""}\n${result.stderr ?? ""}`.trim().slice(-2000);
  throw new Error(
    `${packageName} is not installed and could not be installed (apt-get install ${packageName}${asRoot.length ? " through sudo -n, as this test does not run as root" : ""}: exit ${result.status ?? result.signal}); install Debian's ${packageName} package and rerun.\n${output}`,
  );
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
