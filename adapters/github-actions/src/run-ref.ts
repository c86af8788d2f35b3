import { z } from "@jobtasks/core";

/** GitHub ids are int64: JSON numbers today, possibly bigints or strings from some clients. */
export const githubIdSchema = z
  .union([z.number().int().nonnegative(), z.bigint().nonnegative(), z.string().regex(/^\d+$/)])
  .transform(normalizeGithubId);

export function normalizeGithubId(id: number | bigint | string): number | string {
  if (typeof id === "number") return id;
  const asBigint = BigInt(id);
  return asBigint <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(asBigint) : asBigint.toString();
}

/**
 * An owner or repository name as the allow-list (github-actions-options.ts) admits it. GitHub caps owners
 * at 39 characters and repositories at 100; 100 bounds both.
 */
const repositoryPart = z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/);

/**
 * The adapter's `refSchema`: the server checks every ref it opens from a task id against it, so the do*
 * methods receive a ref of this shape or none at all. The shape has not changed since the first release.
 * Strict, so that another adapter's ref or a forged one never reaches GitHub.
 */
export const runRefSchema = z.strictObject({
  owner: repositoryPart,
  repo: repositoryPart,
  // A safe integer, or the decimal string normalizeGithubId makes of a larger int64 (at most 19 digits).
  runId: z.union([z.int().nonnegative(), z.string().regex(/^\d{1,20}$/)]),
  attempt: z.int().positive(),
});

/**
 * What a task id holds for this adapter: one attempt of one workflow run. The attempt is pinned so that a
 * later re-run (which keeps the run id and bumps the attempt) never changes a finished task. `runId` is a
 * number while it is a safe integer, and the decimal string of a larger int64 id.
 */
export type RunRef = z.infer<typeof runRefSchema>;

export function describeRun(ref: RunRef): string {
  return `${ref.owner}/${ref.repo} run ${ref.runId} attempt ${ref.attempt}`;
}

/**
 * The key of an approval request: `deploy-<runId>-<attempt>-<environmentId>-<reviewsSoFar>`, derived only
 * from what GitHub keeps, so that any replica issues the same key. `reviewsSoFar` is how many reviews of
 * the environment the run's review history holds: it cannot change while a request is open (a review
 * answers it), and it grows with every review, so a later wait on the same environment gets a new key and
 * an answered key is never issued again.
 */
export function deploymentRequestKey(ref: RunRef, environmentId: number | string, reviewsSoFar: number): string {
  return `deploy-${ref.runId}-${ref.attempt}-${environmentId}-${reviewsSoFar}`;
}

/**
 * The environment a key of this attempt approves; undefined for any other key (another attempt's, say).
 * Also reads the keys of earlier versions, `deploy-<runId>-<attempt>-<environmentId>` and
 * `...-<waitingJobId>`, so that an answer to a request issued before an upgrade still reaches GitHub.
 */
export function parseDeploymentRequestKey(ref: RunRef, key: string): { environmentId: number | string } | undefined {
  const prefix = `deploy-${ref.runId}-${ref.attempt}-`;
  if (!key.startsWith(prefix)) return undefined;
  const match = /^(\d+)(?:-\d+)?$/.exec(key.slice(prefix.length));
  if (!match) return undefined;
  return { environmentId: normalizeGithubId(match[1]!) };
}
