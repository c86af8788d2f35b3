// `pnpm pack:all` (after its build): one tarball per publishable package, in packed/ at the repository
// root or in the folder given as the first argument, emptied first. `pnpm pack`, not `npm pack`: pnpm
// writes the real version in place of every `workspace:` range, which npm cannot install.
import { spawnSync } from "node:child_process";
import { mkdir, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const destination = resolve(process.argv[2] ?? join(root, "packed"));

await rm(destination, { recursive: true, force: true });
await mkdir(destination, { recursive: true });

// The pnpm that runs this script (npm_execpath), so its version is the one the repository pins.
const execPath = process.env["npm_execpath"];
const pnpm = execPath && /pnpm/.test(execPath) ? execPath : "pnpm";
const [command, ...prefix] = /\.[cm]?js$/.test(pnpm) ? [process.execPath, pnpm] : [pnpm];
// -r leaves out the private root; its file lists are long, so only failures are shown.
const packed = spawnSync(command, [...prefix, "-r", "pack", "--pack-destination", destination], { cwd: root, encoding: "utf8" });
if (packed.status !== 0) {
  process.stderr.write(`${packed.stdout ?? ""}${packed.stderr ?? ""}${packed.error ? String(packed.error) : ""}\n`);
  process.exit(packed.status ?? 1);
}
const tarballs = (await readdir(destination)).filter((file) => file.endsWith(".tgz")).sort();
console.log(`${tarballs.length} packages packed into ${destination}:\n${tarballs.map((file) => `  ${file}`).join("\n")}`);
