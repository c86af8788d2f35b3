import { JobNotFoundError } from "@jobtasks/core";
import { z } from "zod";

/**
 * What a task id holds for this adapter: one attempt of one workflow run. The attempt is pinned so that a
 * later re-run (which keeps the run id and bumps the attempt) never changes a finished task.
 */
export interface RunRef {
  // The core takes refs as JsonValue (it seals them into task ids); an interface is only assignable to
  // a JSON object type with an index signature.
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

/** The ref a task id held, checked: a ref of an older version of this adapter may arrive. */
export function checkRunRef(ref: RunRef): RunRef {
  const parsed = runRefSchema.safeParse(ref);
  if (!parsed.success) throw new JobNotFoundError("the task does not name a GitHub Actions run");
  return parsed.data;
}

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
