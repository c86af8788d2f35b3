// The command line's artifact, dist/command-line.mjs and its chunks: esbuild bundles what tsc wrote for
// src/run-command-line.ts with the workspace packages jobtasks depends on (the server, the built-in
// adapters) and their libraries, so a start reads a few files where it would read ~230 modules. `pnpm
// build` runs this after `tsc -b`, and packing the package does (prepack). Left out, imported at run time:
// @jobtasks/core with the zod it exports (one copy per process: an optional adapter or a config's own
// module shares them; the SDK's "zod/v4" is that zod) and the optional adapters. What a command imports
// with `import()` (the client commands, `new`) goes into chunks that a `serve` start never reads; what a
// start does not run but its chunks hold (undici, the HTTP stack) esbuild wraps in a function called on
// that import; the SDK's JSON Schema validator (ajv) is loaded at its first use (scripts/sdk-node-shims.mjs).
// The files sit next to tsc's modules, so their `import.meta.url` paths (package.json,
// templates/) hold in them.
import { readdir, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { writeAtomically } from "../../../scripts/write-atomically.mjs";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const external = ["@jobtasks/core", "@jobtasks/github-actions", "@jobtasks/aws-batch", "@jobtasks/kubernetes"];
const sharedZod = {
  name: "shared-zod",
  setup(builder) {
    builder.onResolve({ filter: /^zod(\/v4)?$/ }, () => ({ path: "@jobtasks/core/zod", external: true }));
  },
};
// The SDK's Node shims, with its ajv validator loaded at its first use (scripts/sdk-node-shims.mjs).
const lazyAjvShims = {
  name: "lazy-ajv-shims",
  setup(builder) {
    let sdkDirectory;
    builder.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, (args) => {
      sdkDirectory = args.resolveDir;
      return { path: fileURLToPath(new URL("sdk-node-shims.mjs", import.meta.url)) };
    });
    // The validator as the SDK itself resolves it, from its own folder.
    builder.onResolve({ filter: /^@modelcontextprotocol\/server\/validators\/ajv$/ }, (args) =>
      args.pluginData === sdkDirectory
        ? undefined
        : builder.resolve(args.path, { kind: args.kind, resolveDir: sdkDirectory, pluginData: sdkDirectory }),
    );
  },
};
const { outputFiles } = await build({
  entryPoints: { "command-line": `${dist}run-command-line.js` },
  outdir: dist,
  outExtension: { ".js": ".mjs" },
  // What only some commands import lazily (the client commands, `new`) goes into chunks of its own, which
  // a `serve` start never reads. Beside the entry, so `import.meta.url` paths hold in them too.
  splitting: true,
  chunkNames: "command-line-chunk-[hash]",
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: [...external, ...external.map((name) => `${name}/*`)],
  plugins: [sharedZod, lazyAjvShims],
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
// Chunks of an earlier build go; each file is written whole or not at all (a test may be starting
// `jobtasks` from dist/ while a pack rebuilds it), the chunks before the entry that imports them.
const written = new Set(outputFiles.map((file) => file.path));
for (const name of await readdir(dist))
  if (name.startsWith("command-line-chunk-") && !written.has(`${dist}${name}`)) await rm(`${dist}${name}`);
for (const file of [...outputFiles].sort(
  (a, b) => Number(a.path.endsWith("/command-line.mjs")) - Number(b.path.endsWith("/command-line.mjs")),
))
  await writeAtomically(file.path, file.contents);
process.stderr.write(
  `bundled the command line into packages/cli/dist/command-line.mjs and ${outputFiles.length - 1} chunks\n`,
);
