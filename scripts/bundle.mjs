// The bundling steps of `pnpm build`, after `tsc -b`, in order: zod into @jobtasks/core's dist/zod.js,
// then the command line, which imports that zod. Each writes its one line to stderr, so a script such as
// `pnpm --silent run demo:serve --stdio` keeps stdout for the protocol.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

for (const script of ["../packages/core/scripts/bundle-zod.mjs", "../packages/cli/scripts/bundle-command-line.mjs"]) {
  const { status, signal } = spawnSync(process.execPath, [fileURLToPath(new URL(script, import.meta.url))], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (status !== 0) process.exit(status ?? (signal ? 1 : 0));
}
