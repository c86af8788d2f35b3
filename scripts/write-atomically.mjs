// The build rewrites files that a running test may be loading at that moment (`jobtasks` started from
// packages/cli/dist while `pnpm pack:all` rebuilds it; @jobtasks/core imported while its zod is
// rebundled): each is written under a temporary name and renamed into place, so a reader sees the old file
// or the new one, never half of one.
import { rename, writeFile } from "node:fs/promises";

export async function writeAtomically(path, contents) {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, path);
}
