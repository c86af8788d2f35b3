import { z } from "zod";

/**
 * What a task id holds for this adapter: one attempt of one workflow run. The attempt is pinned so that a
 * later re-run (which keeps the run id and bumps the attempt) never changes a finished task.
 */
export interface RunRef {
  [key: string]: string | number;
  owner: string;
  repo: string;
  /** A number while it is a safe integer; the decimal string of a larger int64 id. */
  runId: number | string;
  attempt: number;
}

/** GitHub ids are int64: JSON numbers today, possibly bigints or strings from some clients. */
export const githubIdSchema = z
  .union([z.number().int().nonnegative(), z.bigint().nonnegative(), z.string().regex(/^\d+$/)])
  .transform(normalizeGithubId);

export function normalizeGithubId(id: number | bigint | string): number | string {
  if (typeof id === "number") return id;
  const asBigint = BigInt(id);
  return asBigint <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(asBigint) : asBigint.toString();
}

export const runRefSchema = z.object({
  owner: z.string().min(1),
  repo: z.string().min(1),
  runId: z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]),
  attempt: z.number().int().positive(),
});

export function describeRun(ref: RunRef): string {
  return `${ref.owner}/${ref.repo} run ${ref.runId} attempt ${ref.attempt}`;
}

/**
 * The key of an approval request: `deploy-<runId>-<attempt>-<environmentId>-<waitingJobId>`, derived only
 * from GitHub's ids so that any replica issues the same key. The waiting job id tells apart two waits on
 * one environment within one attempt (job A deploys to production and is approved, later job B waits on
 * production too): a key is never reused after it was answered. Without a waiting job id (GitHub does not
 * show the waiting job yet) the key is `deploy-<runId>-<attempt>-<environmentId>`.
 */
export function deploymentRequestKey(ref: RunRef, environmentId: number | string, waitingJobId?: number | string): string {
  const key = `deploy-${ref.runId}-${ref.attempt}-${environmentId}`;
  return waitingJobId === undefined ? key : `${key}-${waitingJobId}`;
}

/** The environment a key of this attempt approves; undefined for any other key (another attempt's, say). */
export function parseDeploymentRequestKey(
  ref: RunRef,
  key: string,
): { environmentId: number | string; waitingJobId?: number | string } | undefined {
  const prefix = `deploy-${ref.runId}-${ref.attempt}-`;
  if (!key.startsWith(prefix)) return undefined;
  const match = /^(\d+)(?:-(\d+))?$/.exec(key.slice(prefix.length));
  if (!match) return undefined;
  const environmentId = normalizeGithubId(match[1]!);
  return match[2] === undefined ? { environmentId } : { environmentId, waitingJobId: normalizeGithubId(match[2]) };
}
