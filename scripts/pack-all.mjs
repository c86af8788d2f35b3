// `pnpm pack:all` (after its build): one tarball per publishable package, in packed/ at the repository
// root or in the folder given as the first argument, emptied first. `pnpm pack`, not `npm pack`: pnpm
// writes the real version in place of every `workspace:` range, which npm cannot install.
import { spawnSync } from "node:child_process";
import { access, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
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
// Only packages that are not private: pnpm's recursive pack would also pack private workspace packages
// (the conformance fixtures). Their list comes from pnpm itself; file lists are long, so only failures show.
function runOrExit(args) {
  const ran = spawnSync(command, [...prefix, ...args], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (ran.status !== 0) {
    process.stderr.write(`${ran.stdout ?? ""}${ran.stderr ?? ""}${ran.error ? String(ran.error) : ""}\n`);
    process.exit(ran.status ?? 1);
  }
  return ran.stdout;
}
const publishable = JSON.parse(runOrExit(["-r", "ls", "--json", "--depth", "-1"])).filter(
  (workspacePackage) => !workspacePackage.private,
);
// tsc -b never deletes what a removed or renamed source once built: such files would ship, their maps
// pointing at sources that are gone. They are deleted here (only those: tests may be using the rest).
for (const workspacePackage of publishable) await removeOrphanedBuildOutput(workspacePackage.path);
runOrExit([
  ...publishable.flatMap((workspacePackage) => ["--filter", workspacePackage.name]),
  "pack",
  "--pack-destination",
  destination,
]);
const tarballs = (await readdir(destination)).filter((file) => file.endsWith(".tgz")).sort();
for (const tarball of tarballs) await dropRepositorySchemaReferences(join(destination, tarball));
console.log(
  `${tarballs.length} packages packed into ${destination}:\n${tarballs.map((file) => `  ${file}`).join("\n")}`,
);

/** Delete dist/X.js, X.d.ts and their maps whose src/X.ts no longer exists. */
async function removeOrphanedBuildOutput(packageDirectory) {
  const dist = join(packageDirectory, "dist");
  const entries = await readdir(dist, { recursive: true }).catch(() => []);
  for (const entry of entries) {
    const built = /^(.*?)(\.d)?\.js(\.map)?$|^(.*?)\.d\.ts(\.map)?$/.exec(entry);
    if (!built) continue;
    const stem = built[1] ?? built[4];
    const exists = await access(join(packageDirectory, "src", `${stem}.ts`)).then(
      () => true,
      () => false,
    );
    if (!exists) await rm(join(dist, entry), { force: true });
  }
}

/**
 * The example configs' first line points editors at the schema by its place in this repository
 * (`# yaml-language-server: $schema=../../packages/cli/…`). The editor resolves it relative to the file and
 * knows nothing of packages, so in an install that path leads nowhere: the packed copy leaves the line out.
 */
async function dropRepositorySchemaReferences(tarball) {
  const listed = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const configs = listed.stdout.split("\n").filter((entry) => /\.ya?ml$/.test(entry));
  if (configs.length === 0) return;
  const unpacked = await mkdtemp(join(tmpdir(), "jobtasks-pack-"));
  try {
    tarOrExit(["-xzf", tarball, "-C", unpacked]);
    let changed = false;
    for (const config of configs) {
      const text = await readFile(join(unpacked, config), "utf8");
      const withoutReference = text.replace(/^# yaml-language-server: \$schema=\.\.\/\S*\n/, "");
      if (withoutReference === text) continue;
      await writeFile(join(unpacked, config), withoutReference);
      changed = true;
    }
    if (changed) tarOrExit(["-czf", tarball, "-C", unpacked, "package"]);
  } finally {
    await rm(unpacked, { recursive: true, force: true });
  }
}

function tarOrExit(args) {
  const ran = spawnSync("tar", args, { encoding: "utf8" });
  if (ran.status !== 0) {
    process.stderr.write(`tar ${args.join(" ")}: ${ran.stderr ?? ""}${ran.error ? String(ran.error) : ""}\n`);
    process.exit(ran.status ?? 1);
  }
}
