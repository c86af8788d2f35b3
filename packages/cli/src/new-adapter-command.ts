import { ConfigError } from "@jobtasks/core";
import { scaffoldAdapter } from "./scaffold-adapter.js";

export const newAdapterUsage = "jobtasks new adapter <kind> [--dir DIR]";

/** `jobtasks new adapter <kind> [--dir DIR]`: scaffold an adapter package and say what to do next. */
export async function runNewCommand(args: readonly string[], directory: string | undefined): Promise<void> {
  const [what, kind, ...extra] = args;
  if (what !== "adapter" || kind === undefined || extra.length > 0) {
    throw new ConfigError("command line", `expected: ${newAdapterUsage}`);
  }
  const scaffolded = await scaffoldAdapter({ kind, ...(directory !== undefined ? { directory } : {}) });
  process.stdout.write(
    [
      `Wrote the ${kind} adapter to ${scaffolded.directory}:`,
      ...scaffolded.files.map((file) => `  ${file}`),
      "Next: npm install && npm run typecheck && npm test; then replace the fake job API by yours",
      "(docs/writing-an-adapter.md of jobtasks explains each file). Before @jobtasks/core and",
      "@jobtasks/testkit are published, install them from the tarballs of jobtasks' `pnpm pack:all`",
      "instead (README.md, Develop).",
      "",
    ].join("\n"),
  );
}
