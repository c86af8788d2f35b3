// The core's zod as one file, dist/zod.bundle.mjs, which src/zod.ts re-exports through the package's
// "#zod" import: zod's own package is ~95 ES modules, and a stdio start that loads them one by one spends
// 40-60 ms of its first answer on them; one file loads in a fraction of that. It is the zod the core
// depends on, whole (every locale), so `z`, `@jobtasks/core/zod` and, in the command line's bundle, the SDK's
// "zod/v4" are this one module. `pnpm build` runs this after `tsc -b`, and packing the core does (prepack).
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { writeAtomically } from "../../../scripts/write-atomically.mjs";

const core = fileURLToPath(new URL("..", import.meta.url));
const { outputFiles } = await build({
  stdin: {
    contents: 'export * from "zod";\nexport { default } from "zod";\n',
    resolveDir: core,
    sourcefile: "zod.mjs",
  },
  outfile: `${core}dist/zod.bundle.mjs`,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Paths from the repository root in the `// path` comments, whatever the folder the build runs in.
  absWorkingDir: fileURLToPath(new URL("../../../", import.meta.url)),
  // Not minified, so that a stack trace through zod stays readable.
  legalComments: "inline",
  write: false,
  logLevel: "warning",
});
// Written whole or not at all: a test may be importing the core while a pack rebuilds it.
for (const file of outputFiles) await writeAtomically(file.path, file.contents);
