import type { JWSHeaderParameters, JSONWebKeySet, CryptoKey, FlattenedJWSInput } from "jose";
import type { JoseModule } from "./load-jose.js";

export interface JwksCacheOptions {
  jose: JoseModule;
  /** Where the keys are; resolved lazily (it may come from the issuer's metadata). */
  jwksUri: () => Promise<string>;
  /**
   * The shortest time between two fetches of the key set, whatever the tokens say: a flood of tokens with
   * unknown kids costs the authorization server at most one request per interval. Default 60 s.
   */
  minimumRefetchIntervalMs?: number;
  /** Keys older than this are fetched again at the next use (still within the interval). Default 10 min. */
  maximumAgeMs?: number;
  fetchTimeoutMs?: number;
  now?: () => number;
}

/**
 * The issuer's signing keys, kept in memory. An unknown kid (a key rotated in at the provider) fetches the
 * set again, at most once per interval; failures count as fetches too, so an unreachable key endpoint is
 * not asked again by every request. Concurrent refetches share one request.
 */
export class JwksCache {
  readonly #options: JwksCacheOptions;
  readonly #interval: number;
  readonly #maximumAge: number;
  readonly #now: () => number;
  #keys: ReturnType<JoseModule["createLocalJWKSet"]> | undefined;
  #fetchedAt = -Infinity;
  #attemptedAt = -Infinity;
  #pending: Promise<void> | undefined;
  /** Requests made to the key endpoint: benchmarks and tests read it. */
  fetches = 0;

  constructor(options: JwksCacheOptions) {
    this.#options = options;
    this.#interval = options.minimumRefetchIntervalMs ?? 60_000;
    this.#maximumAge = options.maximumAgeMs ?? 10 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** The key resolver jwtVerify takes. */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    if (this.#keys === undefined || this.#now() - this.#fetchedAt > this.#maximumAge) await this.#refetch();
    if (this.#keys === undefined) throw new Error("the authorization server's keys could not be fetched");
    try {
      return await this.#keys(header, token);
    } catch (error) {
      // Only a kid the set does not hold may mean a rotation; any other failure is the token's own.
      if ((error as { code?: string }).code !== "ERR_JWKS_NO_MATCHING_KEY") throw error;
      if (!(await this.#refetch())) throw error;
      return this.#keys(header, token);
    }
  };

  /** Fetch the set again if the interval allows; true when a new set was fetched for this call. */
  async #refetch(): Promise<boolean> {
    if (this.#pending) {
      await this.#pending;
      return true;
    }
    if (this.#now() - this.#attemptedAt < this.#interval) return false;
    this.#attemptedAt = this.#now();
    this.#pending = this.#fetch().finally(() => {
      this.#pending = undefined;
    });
    await this.#pending.catch(() => undefined);
    return true;
  }

  async #fetch(): Promise<void> {
    this.fetches += 1;
    const uri = await this.#options.jwksUri();
    const response = await fetch(uri, {
      headers: { accept: "application/json" },
      redirect: "error",
      signal: AbortSignal.timeout(this.#options.fetchTimeoutMs ?? 5_000),
    });
    if (!response.ok) throw new Error(`the key set answered HTTP ${response.status}`);
    const body = (await response.json()) as JSONWebKeySet;
    if (!Array.isArray(body?.keys)) throw new Error("the key set has no keys array");
    this.#keys = this.#options.jose.createLocalJWKSet(body);
    this.#fetchedAt = this.#now();
  }
}
