import { readFileSync, statSync } from "node:fs";

/**
 * The build (`pnpm build`, and packing) bundles the command line into `run-command-line.bundle.mjs`
 * (packages/cli/scripts/bundle-command-line.mjs): one file and a few chunks instead of ~200 modules, whose
 * loading was most of a stdio start. Next to it, `run-command-line.bundle.json` names the TypeScript build-info files
 * of the workspace projects it was built from. In a checkout, a `tsc -b` that rebuilt one of them after
 * the bundle leaves the bundle stale: then bin.js runs the modules tsc wrote instead, so a bundle never
 * hides a change. An installed package has no build-info files, and always runs its bundle.
 */
export interface BundleManifest {
  /** Build-info files, relative to the manifest, that the bundle must be newer than. */
  builtFrom: string[];
}

export const bundleFile = "run-command-line.bundle.mjs";
export const bundleManifestFile = "run-command-line.bundle.json";

/** The modification time of a file in ms, or undefined if it does not exist. */
export type ModifiedAt = (url: URL) => number | undefined;

const modifiedAt: ModifiedAt = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs;

/** Whether the bundle in `directory` (a URL ending in /) is there and not older than what it was built from. */
export function isBundleCurrent(directory: URL, stat: ModifiedAt = modifiedAt, read = readManifest): boolean {
  const bundledAt = stat(new URL(bundleFile, directory));
  if (bundledAt === undefined) return false;
  const manifest = read(new URL(bundleManifestFile, directory));
  if (manifest === undefined) return false;
  return manifest.builtFrom.every((file) => {
    const builtAt = stat(new URL(file, directory));
    return builtAt === undefined || builtAt <= bundledAt;
  });
}

function readManifest(url: URL): BundleManifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(url, "utf8")) as Partial<BundleManifest>;
    return Array.isArray(manifest.builtFrom) ? { builtFrom: manifest.builtFrom.map(String) } : undefined;
  } catch {
    return undefined;
  }
}

/** What bin.js imports: the bundle when it is current, else the modules tsc wrote. */
export function commandLineModule(directory: URL): string {
  return isBundleCurrent(directory) ? `./${bundleFile}` : "./run-command-line.js";
}
