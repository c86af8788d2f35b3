import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "adapters/*/src/**/*.test.ts",
      "examples/*/src/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // End-to-end tests start servers on loopback ports; a little parallelism keeps a 2-core machine calm.
    maxWorkers: 2,
    // CI also writes a machine-readable report, from which .ci/run prints its one-line summary.
    // Coverage of the source files, printed as a four-line summary at the end of every run (details: run
    // with --coverage.reporter=text or html).
    coverage: {
      enabled: true,
      provider: "v8",
      reporter: ["text-summary"],
      include: ["packages/*/src/**/*.ts", "adapters/*/src/**/*.ts", "examples/*/src/**/*.ts"],
      exclude: ["**/*.test.ts", "**/test-support/**"],
    },
    reporters: process.env["CI"] ? ["default", ["json", { outputFile: ".ci/test-results.json" }]] : ["default"],
  },
});
