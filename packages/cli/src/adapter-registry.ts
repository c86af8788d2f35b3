import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError, type AdapterDefinition } from "@jobtasks/core";
import { quietAwsNodeVersionNotice } from "./aws-node-version-notice.js";

/** The adapters that ship with jobtasks, by the `kind` a config names. */
export const builtInAdapterPackages: Readonly<Record<string, string>> = {
  demo: "@jobtasks/demo",
  "github-actions": "@jobtasks/github-actions",
  "aws-batch": "@jobtasks/aws-batch",
  rest: "@jobtasks/rest",
  "gitlab-ci": "@jobtasks/gitlab-ci",
  kubernetes: "@jobtasks/kubernetes",
};

/**
 * Built-in kinds whose package is an optional peer of `jobtasks`: they bring the GitHub, AWS and Kubernetes
 * clients (most of an install's weight), so only those who use them install them, next to jobtasks.
 */
export const optionalAdapterPackages: ReadonlySet<string> = new Set([
  "@jobtasks/github-actions",
  "@jobtasks/aws-batch",
  "@jobtasks/kubernetes",
]);

/**
 * Built-in kinds that need a newer Node than jobtasks itself: @kubernetes/client-node 2.x (undici 8) fails
 * at import on Node 20, so a config naming the kind is refused at start with the reason, not at the first job.
 */
export const adapterNodeRequirements: Readonly<Record<string, { version: string; reason: string }>> = {
  kubernetes: { version: "22.19.0", reason: "its client, @kubernetes/client-node 2.x, does not load on older Node" },
};

/** Why this Node cannot run the kind, or undefined when it can. */
export function nodeRequirementProblem(kind: string, version: string = process.versions.node): string | undefined {
  const requirement = Object.hasOwn(adapterNodeRequirements, kind) ? adapterNodeRequirements[kind] : undefined;
  if (!requirement) return undefined;
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [needMajor = 0, needMinor = 0] = requirement.version.split(".").map(Number);
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `kind ${kind} needs Node ${requirement.version} or newer (${requirement.reason}); this is Node ${version}: run jobtasks with Node 22 or 24`;
}

/**
 * The built-in adapters that jobtasks depends on, imported by name so that the build bundles them with the
 * command line (packages/cli/scripts/bundle-command-line.mjs): a start then reads one file, not an adapter's
 * thirty modules. The optional ones and a config's own modules are imported by specifier, from their own
 * packages or files.
 */
const bundledAdapterModules: Readonly<Record<string, () => Promise<unknown>>> = {
  "@jobtasks/demo": () => import("@jobtasks/demo"),
  "@jobtasks/rest": () => import("@jobtasks/rest"),
  "@jobtasks/gitlab-ci": () => import("@jobtasks/gitlab-ci"),
};

/** Load the adapterDefinition a config entry points at, by built-in kind or by module. */
export async function loadAdapterDefinition(
  entry: { kind?: string | undefined; module?: string | undefined },
  where: string,
  configDirectory: string,
): Promise<AdapterDefinition> {
  let specifier: string;
  if (entry.kind !== undefined) {
    const packageName = builtInAdapterPackages[entry.kind];
    if (!packageName) {
      const known = Object.keys(builtInAdapterPackages).join(", ");
      throw new ConfigError(
        `${where}.kind`,
        `unknown adapter kind "${entry.kind}"; expected one of ${known}, or use module for your own`,
      );
    }
    const tooOld = nodeRequirementProblem(entry.kind);
    if (tooOld) throw new ConfigError(`${where}.kind`, tooOld);
    specifier = packageName;
  } else {
    const module = entry.module!;
    specifier =
      module.startsWith(".") || isAbsolute(module) ? pathToFileURL(resolve(configDirectory, module)).href : module;
  }
  // Before any adapter (built in or not) can build an AWS client, which is when the SDK would warn.
  quietAwsNodeVersionNotice();
  let loaded: { adapterDefinition?: AdapterDefinition };
  try {
    // Own keys only: a module named "toString" is a module to import, not a method of this object.
    const bundled = Object.hasOwn(bundledAdapterModules, specifier) ? bundledAdapterModules[specifier] : undefined;
    loaded = (await (bundled ? bundled() : import(specifier))) as { adapterDefinition?: AdapterDefinition };
  } catch (error) {
    if (entry.kind !== undefined && optionalAdapterPackages.has(specifier) && isMissingPackage(error, specifier)) {
      throw new ConfigError(`${where}.kind`, `${entry.kind} needs the package ${specifier}: npm install ${specifier}`, {
        cause: error,
      });
    }
    throw new ConfigError(where, `cannot load adapter module ${specifier}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const definition = loaded.adapterDefinition;
  if (!definition || typeof definition.create !== "function" || !definition.optionsSchema) {
    throw new ConfigError(where, `${specifier} does not export an adapterDefinition ({kind, optionsSchema, create})`);
  }
  return definition;
}

/**
 * Whether an import failed because the package itself is not installed, as opposed to one of its own
 * dependencies (then Node names that other package, and its message is kept as it is).
 */
function isMissingPackage(error: unknown, packageName: string): boolean {
  return (
    (error as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND" &&
    (error as Error).message.includes(`'${packageName}'`)
  );
}
