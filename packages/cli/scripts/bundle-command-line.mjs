// The command line's artifact, dist/command-line.mjs, which bin.js imports: `pnpm build` bundles what tsc
// wrote for src/run-command-line.ts with the server, the built-in adapters and their libraries. Left out,
// imported at run time: @jobtasks/core with the zod it re-exports (the SDK's "zod/v4" is sent there: one zod
// per process, an optional adapter's too) and the optional adapters. What commands import with `import()`
// goes into chunks that a `serve` start never reads, beside the entry so `import.meta.url` paths hold.
import { readFile, readdir, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
// What an earlier build wrote goes first, so that no old chunk ships or runs.
for (const name of await readdir(dist)) if (name.startsWith("command-line")) await rm(`${dist}${name}`);
const external = ["@jobtasks/core", "@jobtasks/github-actions", "@jobtasks/aws-batch", "@jobtasks/kubernetes"];
// The SDK's Node shims import its JSON Schema validator (ajv) at once; sdk-node-shims.mjs, in their place,
// loads it at its first use, its `require` resolved in the SDK's folder.
const shims = fileURLToPath(new URL("sdk-node-shims.mjs", import.meta.url));
let sdkFolder;
const lazyAjv = {
  name: "lazy-ajv",
  setup(builder) {
    builder.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, (args) => {
      sdkFolder = args.resolveDir;
      return { path: shims };
    });
    builder.onLoad({ filter: /sdk-node-shims\.mjs$/ }, async () => ({
      contents: await readFile(shims, "utf8"),
      resolveDir: sdkFolder,
    }));
  },
};
const shared = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: [...external, ...external.map((name) => `${name}/*`)],
  alias: { zod: "@jobtasks/core/zod", "zod/v4": "@jobtasks/core/zod" },
  // Bundled CommonJS libraries require Node's built-ins, which an ES module does through createRequire.
  banner: {
    js: 'import { createRequire as bundleRequire } from "node:module"; const require = bundleRequire(import.meta.url);',
  },
  // Not minified, and each module's path from the repository root in a comment: stack traces stay readable.
  absWorkingDir: fileURLToPath(new URL("../../../", import.meta.url)),
  legalComments: "inline",
  logLevel: "warning",
};
await build({
  ...shared,
  entryPoints: { "command-line": `${dist}run-command-line.js` },
  outdir: dist,
  outExtension: { ".js": ".mjs" },
  splitting: true,
  chunkNames: "command-line-chunk-[hash]",
  plugins: [lazyAjv],
});
// The span export worker's thread (worker-span-exporter.ts) loads a module of its own: one file with the
// OTLP exporters inside, which the command line's chunks do not share.
await build({
  ...shared,
  entryPoints: { "command-line-span-export-worker": `${dist}span-export-worker.js` },
  outdir: dist,
  outExtension: { ".js": ".mjs" },
});
