// Replaces dist/zod-node.js (tsc's re-export of ./zod.js) with zod bundled: src/zod-node.ts says why.
// `pnpm build` runs it after `tsc -b`, and so does packing @jobtasks/core (its prepack script). It writes:
// - dist/zod.cjs: zod as one CommonJS file (ASCII), which dist/cached-script.js runs with V8's compiled
//   code kept between runs (Node 20 keeps none for ES modules; Node 22+ none for vm scripts);
// - dist/zod-node.js: what Node gets for @jobtasks/core/zod, which runs that file and exports each of
//   zod's names. dist/zod.js, the plain re-export a bundler takes, is left as tsc wrote it.
// zod is resolved from @jobtasks/core's own dependency, so the bundle is of the version core declares. Its
// MIT notice goes at the top of the bundle, as the licence asks of a copy.
import { readFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { asciiOnly } from "../../../scripts/ascii-only.mjs";
import { writeAtomically } from "../../../scripts/write-atomically.mjs";

const packageDirectory = fileURLToPath(new URL("..", import.meta.url));
const dist = join(packageDirectory, "dist");
const requireFromCore = createRequire(join(packageDirectory, "package.json"));
const zodManifest = requireFromCore.resolve("zod/package.json");
const { version } = JSON.parse(readFileSync(zodManifest, "utf8"));
const licence = await readFile(join(dirname(zodManifest), "LICENSE"), "utf8");

const entry = {
  contents: 'export * from "zod";\nexport { default } from "zod";\n',
  resolveDir: packageDirectory,
  sourcefile: "zod.ts",
};
const result = await build({
  stdin: entry,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  // Kept readable, as tsc's output is: a stack trace through zod names its functions and lines.
  minify: false,
  legalComments: "inline",
  banner: { js: `/*\nzod ${version}, bundled by @jobtasks/core (src/zod.ts says why).\n\n${licence.trim()}\n*/` },
  write: false,
  logLevel: "warning",
});

// Every name zod's own ES module exports, as esbuild reads them, so that dist/zod-node.js exports what
// dist/zod.js (zod itself) does.
const { metafile } = await build({
  stdin: entry,
  bundle: true,
  format: "esm",
  platform: "node",
  write: false,
  metafile: true,
});
const names = Object.values(metafile.outputs)[0].exports.sort();
const identifier = /^[A-Za-z_$][\w$]*$/;
for (const name of names) if (!identifier.test(name)) throw new Error(`zod exports ${JSON.stringify(name)}`);
const named = names.filter((name) => name !== "default");
const facade = `// Written by scripts/bundle-zod.mjs: zod ${version}, from the one CommonJS file next to this one, run with
// its compiled code cached (src/zod-node.ts and src/cached-script.ts say why).
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { runCachedCommonJs } from "./cached-script.js";

const zod = runCachedCommonJs(fileURLToPath(new URL("./zod.cjs", import.meta.url)), createRequire(import.meta.url)).exports;
${named.map((name, index) => `const $${index} = zod[${JSON.stringify(name)}];`).join("\n")}
export { ${named.map((name, index) => `$${index} as ${name}`).join(", ")} };
export default zod.default;
`;

// The bundle goes first, so the facade never points at a missing file.
await writeAtomically(join(dist, "zod.cjs"), asciiOnly(result.outputFiles[0].text, "dist/zod.cjs"));
await writeAtomically(join(dist, "zod-node.js"), facade);
// tsc's source map describes the re-export, not the facade.
await rm(join(dist, "zod-node.js.map"), { force: true });
process.stderr.write(`bundled zod ${version} into packages/core/dist/zod.cjs (${named.length} names)\n`);
