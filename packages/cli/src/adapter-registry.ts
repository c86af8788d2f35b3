import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError, type AdapterDefinition } from "@jobtasks/core";

/** The adapters that ship with jobtasks, by the `kind` a config names. */
export const builtInAdapterPackages: Readonly<Record<string, string>> = {
  demo: "@jobtasks/demo",
  "github-actions": "@jobtasks/github-actions",
  "aws-batch": "@jobtasks/aws-batch",
  rest: "@jobtasks/rest",
  "gitlab-ci": "@jobtasks/gitlab-ci",
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
      throw new ConfigError(`${where}.kind`, `unknown adapter kind "${entry.kind}"; expected one of ${known}, or use module for your own`);
    }
    specifier = packageName;
  } else {
    const module = entry.module!;
    specifier = module.startsWith(".") || isAbsolute(module) ? pathToFileURL(resolve(configDirectory, module)).href : module;
  }
  let loaded: { adapterDefinition?: AdapterDefinition };
  try {
    loaded = (await import(specifier)) as { adapterDefinition?: AdapterDefinition };
  } catch (error) {
    throw new ConfigError(where, `cannot load adapter module ${specifier}: ${(error as Error).message}`, { cause: error });
  }
  const definition = loaded.adapterDefinition;
  if (!definition || typeof definition.create !== "function" || !definition.optionsSchema) {
    throw new ConfigError(where, `${specifier} does not export an adapterDefinition ({kind, optionsSchema, create})`);
  }
  return definition;
}
