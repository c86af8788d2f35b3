import { readFileSync, statSync } from "node:fs";

/**
 * The build (`pnpm build`, and packing) bundles the command line into `run-command-line.bundle.mjs`
 * (packages/cli/scripts/bundle-command-line.mjs): one file and a few chunks instead of ~230 modules, whose
 * loading was most of a stdio start. Next to it, `run-command-line.bundle.json` names the TypeScript
 * build-info files of the workspace projects it holds, with their package names. In a checkout, a
 * `tsc -b` that rebuilt one of them after the bundle leaves the bundle stale: then bin.js runs the modules
 * tsc wrote instead, so a bundle never hides a change. An installed package has no build-info files, and
 * always runs its bundle.
 */
export interface BundleManifest {
  /** The projects bundled in: the bundle must be newer than each one's build info. */
  builtFrom: BuiltFrom[];
}

export interface BuiltFrom {
  /** A project's tsconfig.tsbuildinfo, relative to the manifest. */
  buildInfo: string;
  /** The name in the package.json next to it: a file at that path in someone else's folder does not count. */
  package: string;
}

export const bundleFile = "run-command-line.bundle.mjs";
export const bundleManifestFile = "run-command-line.bundle.json";

/** The modification time of a file in ms, or undefined if it cannot be read (missing, no permission). */
function modifiedAt(url: URL): number | undefined {
  try {
    return statSync(url, { throwIfNoEntry: false })?.mtimeMs;
  } catch {
    return undefined;
  }
}

function readJson(url: URL): unknown {
  try {
    return JSON.parse(readFileSync(url, "utf8")) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Whether the bundle in `directory` (a URL ending in /) is there and not older than the build info of any
 * project it holds. Nothing here throws: a start must not fail over a file it only checks.
 */
export function isBundleCurrent(directory: URL): boolean {
  const bundledAt = modifiedAt(new URL(bundleFile, directory));
  if (bundledAt === undefined) return false;
  const builtFrom = readManifest(new URL(bundleManifestFile, directory));
  if (builtFrom === undefined) return false;
  return builtFrom.every((project) => {
    const buildInfo = new URL(project.buildInfo, directory);
    const builtAt = modifiedAt(buildInfo);
    if (builtAt === undefined) return true;
    const manifest = readJson(new URL("package.json", buildInfo)) as { name?: unknown } | undefined;
    return manifest?.name !== project.package || builtAt <= bundledAt;
  });
}

function readManifest(url: URL): BuiltFrom[] | undefined {
  const builtFrom = (readJson(url) as { builtFrom?: unknown } | undefined)?.builtFrom;
  if (!Array.isArray(builtFrom)) return undefined;
  const valid = builtFrom.every(
    (entry) =>
      typeof (entry as BuiltFrom | null)?.buildInfo === "string" && typeof (entry as BuiltFrom).package === "string",
  );
  return valid ? (builtFrom as BuiltFrom[]) : undefined;
}

/** What bin.js imports: the bundle when it is current, else the modules tsc wrote. */
export function commandLineModule(directory: URL): string {
  return isBundleCurrent(directory) ? `./${bundleFile}` : "./run-command-line.js";
}
