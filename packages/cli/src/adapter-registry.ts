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
};

/**
 * Built-in kinds whose package is an optional peer of `jobtasks`: they bring the GitHub and AWS clients
 * (most of an install's weight), so only those who use them install them, next to jobtasks.
 */
export const optionalAdapterPackages: ReadonlySet<string> = new Set([
  "@jobtasks/github-actions",
  "@jobtasks/aws-batch",
]);

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
