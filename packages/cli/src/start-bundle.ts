import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { runCachedCommonJs } from "@jobtasks/core/cached-script";

/**
 * The build (`pnpm build`, and packing) bundles the command line into one CommonJS file,
 * `run-command-line.bundle.cjs` (packages/cli/scripts/bundle-command-line.mjs), which bin.js runs with its
 * compiled code cached between runs: one file compiled once instead of ~230 modules compiled at each start,
 * whose loading was most of a stdio start. Next to it, `run-command-line.bundle.json` names the TypeScript
 * build-info files of the workspace projects it holds, with their package names, and the ES modules it
 * requires, which are imported before it runs. In a checkout, a `tsc -b` that rebuilt one of those
 * projects after the bundle leaves the bundle stale: then bin.js runs the modules tsc wrote instead, so a
 * bundle never hides a change. An installed package has no build-info files, and always runs its bundle.
 */
export interface BundleManifest {
  /** The projects bundled in: the bundle must be newer than each one's build info. */
  builtFrom: BuiltFrom[];
  /** The ES modules the bundle requires (by the specifier it uses), imported before it runs. */
  importedBeforeTheBundle: string[];
}

export interface BuiltFrom {
  /** A project's tsconfig.tsbuildinfo, relative to the manifest. */
  buildInfo: string;
  /** The name in the package.json next to it: a file at that path in someone else's folder does not count. */
  package: string;
}

export const bundleFile = "run-command-line.bundle.cjs";
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
  return currentBundleManifest(directory) !== undefined;
}

/** The manifest of the bundle in `directory` when the bundle is current (isBundleCurrent), else undefined. */
function currentBundleManifest(directory: URL): BundleManifest | undefined {
  const bundledAt = modifiedAt(new URL(bundleFile, directory));
  if (bundledAt === undefined) return undefined;
  const manifest = readManifest(new URL(bundleManifestFile, directory));
  if (manifest === undefined) return undefined;
  const current = manifest.builtFrom.every((project) => {
    const buildInfo = new URL(project.buildInfo, directory);
    const builtAt = modifiedAt(buildInfo);
    if (builtAt === undefined) return true;
    const packageManifest = readJson(new URL("package.json", buildInfo)) as { name?: unknown } | undefined;
    return packageManifest?.name !== project.package || builtAt <= bundledAt;
  });
  return current ? manifest : undefined;
}

function readManifest(url: URL): BundleManifest | undefined {
  const { builtFrom, importedBeforeTheBundle } = (readJson(url) ?? {}) as Partial<
    Record<keyof BundleManifest, unknown>
  >;
  if (!Array.isArray(builtFrom) || !Array.isArray(importedBeforeTheBundle)) return undefined;
  const valid =
    builtFrom.every(
      (entry) =>
        typeof (entry as BuiltFrom | null)?.buildInfo === "string" && typeof (entry as BuiltFrom).package === "string",
    ) && importedBeforeTheBundle.every((specifier) => typeof specifier === "string");
  return valid ? { builtFrom, importedBeforeTheBundle } : undefined;
}

/**
 * Runs the command line from `directory` (dist/, a URL ending in /): the bundle when it is current, with
 * the ES modules it requires imported first (from here, next to it), else the modules tsc wrote.
 */
export async function startCommandLine(directory: URL): Promise<void> {
  const manifest = currentBundleManifest(directory);
  if (manifest === undefined) {
    await import(new URL("run-command-line.js", directory).href);
    return;
  }
  const imported = new Map<string, unknown>();
  for (const specifier of manifest.importedBeforeTheBundle) {
    imported.set(specifier, await import(specifier.startsWith(".") ? new URL(specifier, directory).href : specifier));
  }
  const file = fileURLToPath(new URL(bundleFile, directory));
  const requireFromBundle = createRequire(file);
  // A require of the bundle's own otherwise, with its resolve, cache and main for the libraries that read them.
  const requireForBundle = Object.assign(
    (specifier: string) => (imported.has(specifier) ? imported.get(specifier) : requireFromBundle(specifier)),
    { resolve: requireFromBundle.resolve, cache: requireFromBundle.cache, main: requireFromBundle.main },
  );
  runCachedCommonJs(file, requireForBundle);
}
