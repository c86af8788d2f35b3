// The command line's one artifact, dist/command-line.mjs: esbuild bundles what tsc wrote for
// src/run-command-line.ts with the workspace packages jobtasks depends on (the server, the built-in
// adapters) and their libraries, so a start reads one file where it would read ~230 modules. `pnpm build`
// runs this after `tsc -b`, and packing the package does (prepack). Left out, imported at run time:
// @jobtasks/core with the zod it exports (one copy per process: an optional adapter or a config's own
// module shares them; the SDK's "zod/v4" is that zod) and the optional adapters. What a start does not
// run (undici, the HTTP stack, the client commands) is in the file but not run: esbuild wraps a module
// that is imported lazily in a function called on that import, which delays the static imports inside it
// too. The file sits next to tsc's modules, so their `import.meta.url` paths (package.json, templates/)
// hold in it.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { writeAtomically } from "../../../scripts/write-atomically.mjs";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const external = ["@jobtasks/core", "@jobtasks/github-actions", "@jobtasks/aws-batch"];
const sharedZod = {
  name: "shared-zod",
  setup(builder) {
    builder.onResolve({ filter: /^zod(\/v4)?$/ }, () => ({ path: "@jobtasks/core/zod", external: true }));
  },
};
const { outputFiles } = await build({
  entryPoints: [`${dist}run-command-line.js`],
  outfile: `${dist}command-line.mjs`,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: [...external, ...external.map((name) => `${name}/*`)],
  plugins: [sharedZod],
  // Paths from the repository root in the `// path` comments, whatever the folder the build runs in.
  absWorkingDir: fileURLToPath(new URL("../../../", import.meta.url)),
  // Some bundled CommonJS libraries require Node's built-ins, which an ES module does through createRequire.
  banner: {
    js: 'import { createRequire as bundleRequire } from "node:module"; const require = bundleRequire(import.meta.url);',
  },
  // Not minified: a stack trace stays readable, and each module keeps its `// path` comment.
  legalComments: "inline",
  write: false,
  logLevel: "warning",
});
// Written whole or not at all: a test may be starting `jobtasks` from dist/ while a pack rebuilds it.
await writeAtomically(outputFiles[0].path, outputFiles[0].contents);
process.stderr.write(`bundled the command line into packages/cli/dist/command-line.mjs\n`);
