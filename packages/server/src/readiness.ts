import { JobNotFoundError, UpstreamError } from "@jobtasks/core";

/**
 * A check `/readyz` runs besides the adapters' credentials: resolves to undefined when what it checks is
 * fine, or to a short reason fit for an unauthenticated caller ("redis is unreachable"), never a detail
 * such as an address or an error message. Shared state (Redis) registers one where it is configured.
 */
export type ReadinessCheck = () => Promise<string | undefined> | string | undefined;

export type ReadinessState = { ready: true } | { ready: false; reason: string };

/**
 * Whether this process should be sent traffic: every adapter instance was built (the server exists only
 * once they are), none had its credentials refused on its last upstream call, and every registered check
 * passes. A refusal is cleared by the instance's next call that is not refused: credentials fixed upstream
 * (a rotated token put back) make the process ready again without a restart.
 */
export class Readiness {
  /** Instances whose last upstream call was refused for its credentials. */
  readonly #refused = new Set<string>();
  readonly #checks = new Map<string, ReadinessCheck>();

  /** Note how an adapter instance's call into its upstream ended (`error` undefined for a success). */
  noteCall(instance: string, error?: unknown): void {
    if (credentialsRefused(error)) this.#refused.add(instance);
    // Only an answer says the credentials work: a dropped connection or a bug in the adapter says nothing.
    else if (
      error === undefined ||
      error instanceof JobNotFoundError ||
      (error instanceof UpstreamError && error.httpStatus !== undefined)
    )
      this.#refused.delete(instance);
  }

  /** Add (or replace) a named check; the name is for the caller only and never shown. */
  addCheck(name: string, check: ReadinessCheck): void {
    this.#checks.set(name, check);
  }

  async state(): Promise<ReadinessState> {
    if (this.#refused.size > 0) {
      const count = this.#refused.size;
      return {
        ready: false,
        reason: `${count === 1 ? "an adapter's" : `${count} adapters'`} credentials were refused on the last upstream call`,
      };
    }
    for (const check of this.#checks.values()) {
      let reason: string | undefined;
      try {
        reason = await check();
      } catch {
        reason = "a readiness check failed";
      }
      if (reason !== undefined) return { ready: false, reason };
    }
    return { ready: true };
  }
}

/**
 * An upstream answer that refuses the credential itself: HTTP 401. A 403 is left out: GitHub answers a
 * spent rate budget with it, and elsewhere it means a missing permission for one resource, not a dead key.
 */
export function credentialsRefused(error: unknown): boolean {
  return error instanceof UpstreamError && error.httpStatus === 401;
}
