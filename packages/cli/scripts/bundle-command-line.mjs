// Bundles the `jobtasks` command line (dist/run-command-line.js, as tsc wrote it) into one CommonJS file,
// dist/run-command-line.bundle.cjs, after `tsc -b`: `pnpm build` runs it, and packing the package does
// (its prepack script). bin.js runs it through @jobtasks/core's runCachedCommonJs, which keeps V8's
// compiled code of it between runs on every Node (Node 20 keeps none for ES modules): a stdio start then
// reads one file, compiled once, instead of ~230 modules compiled each time. What a start does not need
// (the MCP client, the HTTP stack, the demo) is in the file but not run: esbuild wraps a module imported
// with import() in a function called on that import.
//
// The @jobtasks/* packages that jobtasks depends on (the server and the built-in adapters demo, rest and
// gitlab-ci) are bundled. Left out, so that a process holds one copy of each: @jobtasks/core (its error
// classes are checked with instanceof across adapters) with the zod it exports (every schema is built with
// it; the SDK's "zod/v4" is that zod too), the optional adapters (github-actions, aws-batch: from their own
// packages, when installed) and undici (the REST and GitLab adapters import it on their first request).
// A vm script has no import() (not without an experimental flag), so esbuild turns every import() into
// require(), and the ES modules left out are imported by bin.js before the bundle runs and handed to it
// (start-bundle.ts); an optional adapter or a config's own module is imported through import-module.js,
// also left out. The bundle stays in dist/, next to the modules tsc wrote, so `import.meta.url` paths
// (package.json, templates/) hold in both.
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { readdir, rm } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { asciiOnly } from "../../../scripts/ascii-only.mjs";
import { writeAtomically } from "../../../scripts/write-atomically.mjs";

const packageDirectory = fileURLToPath(new URL("..", import.meta.url));
const dist = join(packageDirectory, "dist");
const entry = join(dist, "run-command-line.js");
const bundleFile = "run-command-line.bundle.cjs";
const manifestFile = "run-command-line.bundle.json";
/** Written by earlier builds, when the bundle was an ES module with chunks: removed, so none is run stale. */
const formerOutput = /^(run-command-line\.bundle\.mjs|bundle-chunk-.*\.mjs)$/;

/** ES modules the bundle requires, imported by bin.js first (start-bundle.ts), by specifier. */
const importedBeforeTheBundle = [
  "@jobtasks/core",
  "@jobtasks/core/zod",
  "@jobtasks/core/adapter-utils",
  "./import-module.js",
];

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
    builder.onResolve({ filter: /^\.\/import-module\.js$/ }, (args) =>
      dirname(args.importer) === dist ? { path: args.path, external: true } : undefined,
    );
    // The SDK imports "zod/v4": the process's one zod is the one @jobtasks/core exports (core's src/zod.ts).
    builder.onResolve({ filter: /^zod(\/v4)?$/ }, () => ({ path: "@jobtasks/core/zod", external: true }));
  },
};

const result = await build({
  entryPoints: [entry],
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  outfile: join(dist, bundleFile),
  absWorkingDir: workspaceRoot,
  external: ["undici"],
  plugins: [jobtasksPackagesOutside],
  supported: { "dynamic-import": false },
  // tsc's modules find package.json and templates/ from import.meta.url; the bundle sits beside them.
  define: { "import.meta.url": "__bundleUrl" },
  banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  // Not minified: stack traces stay readable, and each module keeps its `// path` comment.
  minify: false,
  legalComments: "inline",
  metafile: true,
  write: false,
  logLevel: "warning",
});

// Anything else left out would be require()d, and an ES module cannot be: name it above or bundle it.
const builtIn = new Set(builtinModules);
for (const [input, { imports }] of Object.entries(result.metafile.inputs)) {
  for (const { path, external } of imports) {
    if (!external || builtIn.has(path.replace(/^node:/, "")) || path === "undici") continue;
    if (importedBeforeTheBundle.includes(path)) continue;
    process.stderr.write(`${input} imports ${path}, left out of the bundle: add it to importedBeforeTheBundle\n`);
    process.exit(1);
  }
}

const [bundle] = result.outputFiles;
await writeAtomically(bundle.path, asciiOnly(bundle.text, bundleFile));
for (const name of await readdir(dist)) if (formerOutput.test(name)) await rm(join(dist, name), { force: true });

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
await writeAtomically(join(dist, manifestFile), `${JSON.stringify({ builtFrom, importedBeforeTheBundle }, null, 2)}\n`);
process.stderr.write(
  `bundled ${relative(workspaceRoot, entry)} into ${relative(workspaceRoot, bundle.path)} (${Math.round(bundle.contents.length / 1024)} KiB)\n`,
);
