import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@jobtasks/core";
import { packageVersion } from "./package-version.js";

/**
 * `jobtasks new adapter <kind>`: write a new adapter package laid out as docs/writing-an-adapter.md
 * describes (factory, options schema, upstream client, status mapping with its table test, one tool, a
 * conformance test against a fake upstream, README). The files come from templates/adapter/ shipped with
 * this package; `__kind__` in a file name and `{{name}}` in a file's text are filled in.
 */

export interface ScaffoldAdapterOptions {
  /** The adapter's kind, kebab-case: "my-ci". */
  kind: string;
  /** Where to write the package (created; must not exist or be empty). Default: ./<kind>. */
  directory?: string;
  /** The npm package name (default "jobtasks-adapter-<kind>"). */
  packageName?: string;
  /**
   * The version range of @jobtasks/core and @jobtasks/testkit. Default: "workspace:*" inside a checkout of
   * jobtasks (adapters/<kind> there), else "^<this jobtasks version>".
   */
  coreVersion?: string;
}

export interface ScaffoldedAdapter {
  directory: string;
  /** Written files, relative to `directory`. */
  files: string[];
}

const kindPattern = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const templateDirectory = fileURLToPath(new URL("../templates/adapter/", import.meta.url));

export async function scaffoldAdapter(options: ScaffoldAdapterOptions): Promise<ScaffoldedAdapter> {
  const { kind } = options;
  if (!kindPattern.test(kind) || kind.length > 40) {
    throw new ConfigError(
      "kind",
      `"${kind}" is not a kind: use lower-case letters, digits and single hyphens, starting with a letter (e.g. my-ci)`,
    );
  }
  const directory = resolve(options.directory ?? kind);
  await ensureEmptyDirectory(directory);
  const coreVersion =
    options.coreVersion ?? ((await insideJobtasksWorkspace(directory)) ? "workspace:*" : `^${packageVersion}`);
  const values = templateValues(kind, options.packageName ?? `jobtasks-adapter-${kind}`, coreVersion);
  const files: string[] = [];
  for (const template of await listTemplates(templateDirectory)) {
    const target = join(
      directory,
      relative(templateDirectory, template)
        .replaceAll("__kind__", kind)
        .replace(/\.tmpl$/, ""),
    );
    const text = (await readFile(template, "utf8")).replace(
      /\{\{(\w+)\}\}/g,
      (placeholder, name: string) => values[name] ?? placeholder,
    );
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text, { flag: "wx" });
    files.push(relative(directory, target));
  }
  return { directory, files: files.sort() };
}

/** The names a template may use, from a kebab-case kind: "my-ci" → myCi, MyCi, my_ci, MY_CI. */
export function templateValues(kind: string, packageName: string, coreVersion: string): Record<string, string> {
  const words = kind.split("-");
  const pascalName = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
  return {
    kind,
    packageName,
    coreVersion,
    pascalName,
    camelName: pascalName[0]!.toLowerCase() + pascalName.slice(1),
    snakeName: words.join("_"),
    envPrefix: words.join("_").toUpperCase(),
  };
}

/** Whether `directory` lies inside a checkout of jobtasks itself, whose packages a workspace link reaches. */
async function insideJobtasksWorkspace(directory: string): Promise<boolean> {
  for (let current = directory; ; current = dirname(current)) {
    const workspace = await stat(join(current, "pnpm-workspace.yaml")).catch(() => undefined);
    if (workspace) {
      const core = await readFile(join(current, "packages", "core", "package.json"), "utf8").catch(() => "{}");
      return (JSON.parse(core) as { name?: unknown }).name === "@jobtasks/core";
    }
    if (dirname(current) === current) return false;
  }
}

async function ensureEmptyDirectory(directory: string): Promise<void> {
  const existing = await stat(directory).catch(() => undefined);
  if (!existing) return;
  if (!existing.isDirectory() || (await readdir(directory)).length > 0) {
    throw new ConfigError("--dir", `${directory} already exists and is not an empty directory; choose another one`);
  }
}

async function listTemplates(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? listTemplates(join(directory, entry.name)) : Promise.resolve([join(directory, entry.name)]),
    ),
  );
  return nested.flat();
}
