// Bundles the `jobtasks` command line (dist/run-command-line.js, as tsc wrote it) into
// dist/run-command-line.bundle.mjs and a few chunks next to it, after `tsc -b`: `pnpm build` runs it, and
// packing the package does (its prepack script). A stdio start then reads 17 files of its own instead of
// ~230 modules; what a start does not need (the MCP client, the HTTP stack, the demo) stays in
// chunks loaded when used.
//
// The @jobtasks/* packages that jobtasks depends on (the server and the built-in adapters demo, rest and
// gitlab-ci, each in a chunk loaded when a config names it) are bundled. Left out, so that a process holds
// one copy of each: @jobtasks/core (its error classes are checked with instanceof across adapters), the
// optional adapters (github-actions, aws-batch: from their own packages, when installed) and zod (every
// adapter's option schemas are built with it). undici is left out too: the REST and GitLab adapters import
// it on their first request, and esbuild gives a CommonJS package imported with import() only a default
// export (jobtasks depends on the same undici, so the import finds it). The chunks stay in dist/, next to
// the modules tsc wrote, so `import.meta.url` paths (package.json, templates/) hold in both.
import { readFileSync } from "node:fs";
import { readdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const packageDirectory = fileURLToPath(new URL("..", import.meta.url));
const dist = join(packageDirectory, "dist");
const entry = join(dist, "run-command-line.js");
const bundleName = "run-command-line.bundle";
const chunkPrefix = "bundle-chunk-";

const workspaceRoot = join(packageDirectory, "..", "..");

/** The workspace packages in `dependencies` but the core: installed with jobtasks, so bundled with it. */
const { dependencies } = JSON.parse(readFileSync(join(packageDirectory, "package.json"), "utf8"));
const bundledWorkspacePackages = new Set(
  Object.keys(dependencies).filter((name) => name.startsWith("@jobtasks/") && name !== "@jobtasks/core"),
);

/** Any other @jobtasks/* package (the core, the optional adapters) is imported at run time. */
const jobtasksPackagesOutside = {
  name: "jobtasks-packages-outside",
  setup(builder) {
    builder.onResolve({ filter: /^@jobtasks\// }, (args) =>
      bundledWorkspacePackages.has(args.path) ? undefined : { path: args.path, external: true },
    );
  },
};

const result = await build({
  entryPoints: [entry],
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outdir: dist,
  entryNames: bundleName,
  chunkNames: `${chunkPrefix}[hash]`,
  outExtension: { ".js": ".mjs" },
  absWorkingDir: workspaceRoot,
  external: ["zod", "zod/*", "undici"],
  plugins: [jobtasksPackagesOutside],
  // Bundled CommonJS (commander, pino, yaml) calls require() for Node's own modules.
  banner: {
    js: 'import { createRequire as __bundleRequire } from "node:module";\nconst require = __bundleRequire(import.meta.url);',
  },
  // Not minified: stack traces stay readable, and each module keeps its `// path` comment.
  minify: false,
  legalComments: "inline",
  metafile: true,
  write: false,
  logLevel: "warning",
});

// A CommonJS package reached by import() becomes a chunk holding `export default require_x()`: its named
// exports are gone, and `const { request } = await import("undici")` would find nothing. Such a package
// must be left out (external) and be a dependency of jobtasks.
for (const file of result.outputFiles) {
  const defaultOnly = /^export default (require_\w+)\(\);$/m.exec(file.text);
  if (defaultOnly) {
    process.stderr.write(
      `${relative(workspaceRoot, file.path)} gives a CommonJS module imported with import() (${defaultOnly[1]}) only a default export: add its package to external in ${relative(workspaceRoot, fileURLToPath(import.meta.url))}\n`,
    );
    process.exit(1);
  }
}

// Written under temporary names and renamed into place: tests may be starting `jobtasks` from this
// directory while `pnpm pack:all` rebuilds it.
const written = new Set();
for (const file of result.outputFiles) {
  const temporary = `${file.path}.${process.pid}.tmp`;
  await writeFile(temporary, file.contents);
  await rename(temporary, file.path);
  written.add(file.path);
}
for (const name of await readdir(dist)) {
  const path = join(dist, name);
  if (name.startsWith(chunkPrefix) && name.endsWith(".mjs") && !written.has(path)) await rm(path, { force: true });
}

// The build-info files of the workspace projects bundled in: a later `tsc -b` that rewrites one leaves the
// bundle stale, and bin.js falls back to the modules tsc wrote (src/start-bundle.ts).
const projects = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const absolute = join(workspaceRoot, input);
  const project = /^(.*)[/\\]dist[/\\]/.exec(relative(workspaceRoot, absolute));
  if (project && !project[1].includes("node_modules")) projects.add(join(workspaceRoot, project[1]));
}
// Paths with "/" whatever the OS: bin.js resolves them as URLs. The package name tells the project's build
// info from a file at the same path in an installed package's surroundings.
const builtFrom = [...projects].sort().map((project) => ({
  buildInfo: relative(dist, join(project, "tsconfig.tsbuildinfo")).split(sep).join("/"),
  package: JSON.parse(readFileSync(join(project, "package.json"), "utf8")).name,
}));
const manifest = join(dist, `${bundleName}.json`);
await writeFile(`${manifest}.${process.pid}.tmp`, `${JSON.stringify({ builtFrom }, null, 2)}\n`);
await rename(`${manifest}.${process.pid}.tmp`, manifest);
process.stderr.write(
  `bundled ${relative(workspaceRoot, entry)} into ${written.size} files in ${relative(workspaceRoot, dirname(entry))}\n`,
);
