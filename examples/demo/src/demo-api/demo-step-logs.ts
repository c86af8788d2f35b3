/**
 * Log lines the demo pipeline prints, so that an agent reading a result sees what a CI log looks like,
 * and a failed job explains itself the way a real one would (the failing test, the assertion, the exit code).
 */

const successLines: Readonly<Record<string, readonly string[]>> = {
  checkout: ["Fetching origin", "HEAD is now at 4f2c9e1 Add discount rules to the cart"],
  install: ["Lockfile is up to date, resolution step is skipped", "Packages: +412", "Done in 3.2s"],
  build: ["tsc -b", "Built 6 projects in 4.8s"],
  test: ["Test Files  24 passed (24)", "Tests  187 passed (187)", "Duration  6.41s"],
  package: ["Creating tarball cart-service-2.14.0.tgz", "Image built: registry.example/cart-service:2.14.0"],
  deploy: ["Deploying cart-service 2.14.0 to production", "Rollout complete: 6/6 replicas ready"],
  "smoke-test": ["GET /healthz 200 (41ms)", "POST /cart/checkout 201 (188ms)", "Smoke tests passed"],
  notify: ["Posted release notes to #releases"],
};

const failureLines: Readonly<Record<string, readonly string[]>> = {
  checkout: ["fatal: couldn't find remote ref refs/heads/feature/discounts"],
  install: ["ERR_PNPM_NO_MATCHING_VERSION No matching version found for left-pad@^9.0.0"],
  build: [
    "src/cart/discount.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    "Found 1 error.",
  ],
  deploy: [
    "Deploying cart-service 2.14.0 to production",
    "Rollout stalled: 2/6 replicas ready after 300s",
    "Error: readiness probe failed: GET /healthz 503",
  ],
};

/** The default failure: a test that fails on an assertion, the most common way a pipeline goes red. */
const failingTestLines: readonly string[] = [
  " FAIL  src/cart/discount.test.ts > applies the loyalty discount before tax",
  "AssertionError: expected 90 to be 85 // Object.is equality",
  "  - Expected: 85",
  "  + Received: 90",
  " ❯ src/cart/discount.test.ts:27:19",
  "Test Files  1 failed | 23 passed (24)",
  "Tests  1 failed | 186 passed (187)",
];

/** The name without a round suffix: "test #2" logs like "test". */
function baseName(stepName: string): string {
  return stepName.replace(/ #\d+$/, "");
}

export function stepStartedLines(stepNumber: number, totalSteps: number, stepName: string): string[] {
  return [`[step ${stepNumber}/${totalSteps}] ${stepName}: started`];
}

export function stepSucceededLines(stepName: string): string[] {
  const lines = successLines[baseName(stepName)] ?? [`${stepName}: ok`];
  return [...lines, `${stepName}: succeeded`];
}

export function stepFailedLines(stepName: string): string[] {
  const lines = failureLines[baseName(stepName)] ?? failingTestLines;
  return [...lines, `Error: step "${stepName}" exited with code 1`];
}
