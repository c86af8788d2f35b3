import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { ConfigError, describeConfigIssues, type AnyJobAdapter } from "@jobtasks/core";
import { configFileSchema, type ServerSettings } from "./config-schema.js";
import { interpolateEnvironment } from "./interpolate-environment.js";
import { loadAdapterDefinition } from "./adapter-registry.js";
import { parseConfigText } from "./parse-config-text.js";

/** A config file that cannot be used; `problems` lists every field at fault, one line each. */
export class ConfigFileError extends Error {
  readonly problems: string[];
  constructor(file: string, problems: string[]) {
    super(`Invalid config ${file}:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigFileError";
    this.problems = problems;
  }
}

export interface LoadedConfig {
  server: ServerSettings;
  adapters: Array<{ name: string; adapter: AnyJobAdapter }>;
}

/**
 * Read, validate and build everything a config file describes. Any problem stops here, before the server
 * starts, with the field named: a server that starts is a server whose config was understood.
 */
export async function loadConfig(
  file: string,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): Promise<LoadedConfig> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    // The absolute path: a relative one leaves the reader guessing which directory it was taken from.
    throw new ConfigFileError(file, [`cannot read ${path}: ${describeReadError(error as NodeJS.ErrnoException)}`]);
  }
  const parsed = parseConfigText(text);
  if (!parsed.ok) throw new ConfigFileError(file, parsed.problems);
  return buildConfig(parsed.value, { file, directory: dirname(path), environment });
}

function describeReadError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "ENOENT":
      return "no such file (ENOENT)";
    case "EISDIR":
      return "a directory, not a file (EISDIR)";
    case "EACCES":
      return "permission denied (EACCES)";
    default:
      return error.code ?? error.message;
  }
}

export async function buildConfig(
  raw: unknown,
  source: { file: string; directory: string; environment: Readonly<Record<string, string | undefined>> },
): Promise<LoadedConfig> {
  let interpolated: unknown;
  try {
    interpolated = interpolateEnvironment(raw, source.environment);
  } catch (error) {
    if (error instanceof ConfigError)
      throw new ConfigFileError(source.file, [
        `${error.option}: ${error.message.replace(/^Invalid configuration at [^:]+: /, "")}`,
      ]);
    throw error;
  }
  // A config is parsed once: zod's compiled fast path (a generated function per object) would cost more to
  // build than it saves, at start-up, where every millisecond is the host's wait.
  const parsed = configFileSchema.safeParse(interpolated, { jitless: true });
  if (!parsed.success) throw new ConfigFileError(source.file, describeConfigIssues(parsed.error.issues, "", "(root)"));

  const problems: string[] = [];
  const adapters: LoadedConfig["adapters"] = [];
  const seen = new Set<string>();
  for (const [index, entry] of parsed.data.adapters.entries()) {
    const where = `adapters[${index}]`;
    if (seen.has(entry.name)) {
      problems.push(`${where}.name: "${entry.name}" is already used by another adapter`);
      continue;
    }
    seen.add(entry.name);
    try {
      const definition = await loadAdapterDefinition(entry, where, source.directory);
      const options = definition.optionsSchema.safeParse(entry.options, { jitless: true });
      if (!options.success) {
        problems.push(...describeConfigIssues(options.error.issues, `${where}.options`));
        continue;
      }
      adapters.push({ name: entry.name, adapter: definition.create(options.data, source.environment) });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const option = error.option.startsWith("adapters[") ? error.option : `${where}.options.${error.option}`;
      problems.push(`${option}: ${error.message.replace(/^Invalid configuration at [^:]+: /, "")}`);
    }
  }
  if (problems.length > 0) throw new ConfigFileError(source.file, problems);
  return { server: parsed.data.server, adapters };
}
