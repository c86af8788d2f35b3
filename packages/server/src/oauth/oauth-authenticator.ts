import { createHash } from "node:crypto";
import { boundedCache } from "@jobtasks/core/adapter-utils";
import type { AuthenticatedCaller } from "../access-policy.js";
import { bearerTokenOf, type Authentication, type RequestAuthenticator } from "../request-authentication.js";
import { fetchAuthorizationServerMetadata, type AuthorizationServerMetadata } from "./authorization-server-metadata.js";
import { JwksCache } from "./jwks-cache.js";
import { loadJose, type JoseModule } from "./load-jose.js";
import { asymmetricAlgorithms, type AsymmetricAlgorithm } from "../asymmetric-algorithms.js";
import { introspectToken, type IntrospectedToken, type IntrospectionOptions } from "./token-introspection.js";

export interface OAuthOptions {
  /** The authorization server's issuer identifier, exactly as its tokens' `iss` spell it. */
  issuer: string;
  /** The canonical URL of this MCP endpoint (RFC 8707 resource), as clients reach it. */
  resource: string;
  /** The `aud` tokens must carry. Default: the resource. */
  audience?: string;
  /** Default: `jwks_uri` of the issuer's metadata. */
  jwksUri?: string;
  /** Accepted signature algorithms. Default: every asymmetric one. */
  algorithms?: readonly AsymmetricAlgorithm[];
  /** Tolerated clock difference for exp and nbf, at most 60 s. Default 30. */
  clockSkewSeconds?: number;
  /** Scopes every request needs. */
  requiredScopes?: readonly string[];
  /**
   * The `typ` header tokens must carry, `at+jwt` (RFC 9068), when the issuer sets it: an ID token or any
   * other JWT of the same issuer then cannot pass for an access token even with a matching audience.
   * Default: not checked (Keycloak and Entra ID write `JWT`).
   */
  tokenType?: "at+jwt";
  /** Claims read as the token's scopes (space-separated strings or arrays). Default scope and scp. */
  scopeClaims?: readonly string[];
  introspection?: IntrospectionOptions;
  /** Verified tokens remembered (by their SHA-256) until they expire. Default 10,000. */
  cachedTokens?: number;
  /** The shortest time between two key set fetches. Default 60 s. */
  jwksRefetchIntervalMs?: number;
  now?: () => number;
}

/** Why a token failed verification, as jose names it (no part of the token). */
class RefusedToken extends Error {}

export interface OAuthAuthenticator extends RequestAuthenticator {
  readonly mode: "oauth";
  readonly options: OAuthOptions;
  /** Requests made to the authorization server so far, by kind (benchmarks and tests read them). */
  readonly requests: { jwks: number; metadata: number; introspection: number };
}

/**
 * An OAuth 2.1 resource server's token check. JWT access tokens are verified locally against the issuer's
 * keys (issuer, audience, exp and nbf within the clock skew, an accepted asymmetric algorithm); opaque
 * tokens, and JWTs when asked, are introspected. A verified token is remembered by its hash until it
 * expires (an introspection answer no longer than cacheSeconds), so a poller's token is checked once.
 * The caller's principal is the issuer and the token's subject.
 */
export async function createOAuthAuthenticator(options: OAuthOptions): Promise<OAuthAuthenticator> {
  const jose = await loadJose();
  const now = options.now ?? Date.now;
  const audience = options.audience ?? options.resource;
  const scopeClaims = options.scopeClaims ?? ["scope", "scp"];
  const requiredScopes = options.requiredScopes ?? [];
  const introspectionCacheMs = Math.min(options.introspection?.cacheSeconds ?? 60, 300) * 1000;
  const requests = { jwks: 0, metadata: 0, introspection: 0 };
  const verified = boundedCache<string, { caller: AuthenticatedCaller; until: number }>(options.cachedTokens ?? 10_000);
  // A refused token is refused again for a minute without another check: resending one costs nothing here
  // and, with introspection, nothing at the authorization server.
  const refused = boundedCache<string, { reason: string; until: number }>(options.cachedTokens ?? 10_000);
  // Tokens never seen before are introspected at most this often: a flood of made-up opaque tokens must not
  // become a flood of requests to the authorization server (which would then refuse jobtasks' own client).
  const introspectionBudget = { windowStart: -Infinity, spent: 0 };

  let metadata: Promise<AuthorizationServerMetadata> | undefined;
  let metadataFailedAt = -Infinity;
  const issuerMetadata = (): Promise<AuthorizationServerMetadata> => {
    // A failed read is tried again a minute later at the soonest, not at every request.
    if (metadata === undefined && now() - metadataFailedAt >= 60_000) {
      requests.metadata += 1;
      metadata = fetchAuthorizationServerMetadata(options.issuer).catch((error: unknown) => {
        metadata = undefined;
        metadataFailedAt = now();
        throw error;
      });
    }
    return metadata ?? Promise.reject(new Error("the issuer's metadata could not be read a moment ago"));
  };
  const jwks = new JwksCache({
    jose,
    jwksUri: async () => {
      if (options.jwksUri) return options.jwksUri;
      const found = (await issuerMetadata()).jwks_uri;
      if (!found) throw new Error("the issuer's metadata names no jwks_uri; set server.auth.jwksUri");
      return found;
    },
    ...(options.jwksRefetchIntervalMs !== undefined ? { minimumRefetchIntervalMs: options.jwksRefetchIntervalMs } : {}),
    now,
  });
  const introspectionEndpoint = async (): Promise<string> => {
    const endpoint = options.introspection?.endpoint ?? (await issuerMetadata()).introspection_endpoint;
    if (!endpoint)
      throw new Error("the issuer's metadata names no introspection_endpoint; set server.auth.introspection.endpoint");
    return endpoint;
  };

  const verifyJwt = async (token: string) => {
    try {
      const { payload } = await jose.jwtVerify(token, jwks.getKey, {
        issuer: options.issuer,
        audience,
        algorithms: [...(options.algorithms ?? asymmetricAlgorithms)],
        clockTolerance: Math.min(options.clockSkewSeconds ?? 30, 60),
        requiredClaims: ["exp", "sub"],
        ...(options.tokenType ? { typ: options.tokenType } : {}),
      });
      return payload;
    } catch (error) {
      // jose's errors carry a code; anything else is the key set failing to load, not the token's fault.
      const code = (error as { code?: unknown }).code;
      if (typeof code === "string" && code.startsWith("ERR_")) throw new RefusedToken(code);
      throw error;
    }
  };

  const introspect = async (token: string): Promise<IntrospectedToken> => {
    if (now() - introspectionBudget.windowStart >= 60_000)
      Object.assign(introspectionBudget, { windowStart: now(), spent: 0 });
    if (introspectionBudget.spent >= maxIntrospectionsPerMinute)
      throw new Error("too many tokens to introspect this minute; the next minute's budget comes shortly");
    introspectionBudget.spent += 1;
    requests.introspection += 1;
    const answer = await introspectToken(await introspectionEndpoint(), options.introspection!, token);
    if (!answer) throw new RefusedToken("inactive token (introspection)");
    const seconds = now() / 1000;
    const skew = Math.min(options.clockSkewSeconds ?? 30, 60);
    if (answer.issuer !== undefined && answer.issuer !== options.issuer) throw new RefusedToken("another issuer");
    // Audience binding (RFC 8707) holds for opaque tokens too: a token for another resource is refused.
    if (!answer.audiences.includes(audience)) throw new RefusedToken("another audience (introspection)");
    if (answer.expiresAt !== undefined && answer.expiresAt + skew <= seconds) throw new RefusedToken("expired");
    if (answer.notBefore !== undefined && answer.notBefore - skew > seconds) throw new RefusedToken("not yet valid");
    if (answer.subject === "") throw new RefusedToken("no subject (introspection)");
    return answer;
  };

  const check = async (token: string): Promise<{ caller: AuthenticatedCaller; until: number }> => {
    const parts = token.split(".");
    if (parts.length === 3) {
      // One written form per token: base64url can hide spare bits in a segment's last character, and a
      // token re-spelled that way would verify as the original while hashing to another cache entry.
      if (parts.some((part) => Buffer.from(part, "base64url").toString("base64url") !== part))
        throw new RefusedToken("a segment is not canonical base64url");
      const payload = await verifyJwt(token);
      // jose checks that sub is present, not its type: a number, an object or "" would give principals
      // that collide (42 and "42", every object as "[object Object]", the issuer alone).
      if (typeof payload.sub !== "string" || payload.sub === "") throw new RefusedToken("sub is not a string");
      let until = payload.exp! * 1000;
      if (options.introspection?.jwts) {
        await introspect(token);
        until = Math.min(until, now() + introspectionCacheMs);
      }
      return { caller: callerOf(payload.sub, scopesOf(payload, scopeClaims)), until };
    }
    if (!options.introspection) throw new RefusedToken("not a JWT, and no introspection is configured");
    const answer = await introspect(token);
    const until = Math.min(
      answer.expiresAt !== undefined ? answer.expiresAt * 1000 : Infinity,
      now() + introspectionCacheMs,
    );
    return { caller: callerOf(answer.subject, new Set(splitScopes(answer.scope))), until };
  };
  const callerOf = (subject: string, scopes: ReadonlySet<string>): AuthenticatedCaller => ({
    // An issuer URL holds no "#" (RFC 8414: no fragment), so the two parts cannot be confused.
    principal: `${options.issuer}#${subject}`,
    scopes,
  });

  const withRequiredScopes = (caller: AuthenticatedCaller): Authentication => {
    const missing = requiredScopes.filter((scope) => !caller.scopes?.has(scope));
    return missing.length > 0 ? { kind: "insufficient-scope", scopes: requiredScopes } : { kind: "caller", caller };
  };

  return {
    mode: "oauth",
    options,
    description: `OAuth access tokens of ${options.issuer} for ${audience}`,
    get requests() {
      return { ...requests, jwks: jwks.fetches };
    },
    async authenticate(authorization) {
      const token = bearerTokenOf(authorization);
      if (token === undefined) return { kind: "refused", tokenSent: false, reason: "no bearer token" };
      const key = createHash("sha256").update(token).digest("base64url");
      const remembered = verified.get(key);
      if (remembered && remembered.until > now()) return withRequiredScopes(remembered.caller);
      if (remembered) verified.delete(key);
      const refusal = refused.get(key);
      if (refusal && refusal.until > now()) return { kind: "refused", tokenSent: true, reason: refusal.reason };
      try {
        const checked = await check(token);
        if (checked.until > now()) verified.set(key, checked);
        return withRequiredScopes(checked.caller);
      } catch (error) {
        if (error instanceof RefusedToken) {
          refused.set(key, { reason: error.message, until: now() + refusalMemoryMs });
          return { kind: "refused", tokenSent: true, reason: error.message };
        }
        return { kind: "unavailable", reason: (error as Error).message };
      }
    },
  };
}

/** How long a refused token is answered from memory. */
const refusalMemoryMs = 60_000;

/** Introspections of tokens not seen before, per minute; beyond, a request gets 503 and Retry-After. */
const maxIntrospectionsPerMinute = 600;

function scopesOf(payload: Record<string, unknown>, claims: readonly string[]): ReadonlySet<string> {
  const scopes = new Set<string>();
  for (const claim of claims) {
    const value = payload[claim];
    if (typeof value === "string") for (const scope of splitScopes(value)) scopes.add(scope);
    else if (Array.isArray(value)) for (const scope of value) if (typeof scope === "string") scopes.add(scope);
  }
  return scopes;
}

function splitScopes(value: string | undefined): string[] {
  return (value ?? "").split(" ").filter((scope) => scope !== "");
}

export type { JoseModule };
