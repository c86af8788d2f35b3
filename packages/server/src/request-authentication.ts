import type { BearerTokens } from "./auth.js";
import type { AuthenticatedCaller } from "./access-policy.js";

/** What authenticating one request's Authorization header found. */
export type Authentication =
  | { kind: "caller"; caller: AuthenticatedCaller }
  /** No token, or one that is not valid here (401). `reason` is for the log and error_description, never the token. */
  | { kind: "refused"; tokenSent: boolean; reason: string }
  /** A valid token without the scopes every request needs (403 insufficient_scope). */
  | { kind: "insufficient-scope"; scopes: readonly string[] }
  /** The token could not be checked now (the authorization server is unreachable): 503, not the caller's fault. */
  | { kind: "unavailable"; reason: string };

/** How an HTTP server authenticates its callers: static tokens, or OAuth access tokens. */
export interface RequestAuthenticator {
  readonly mode: "tokens" | "oauth";
  authenticate(authorization: string | undefined): Authentication | Promise<Authentication>;
  /** For the start-up log: who may call, without any secret. */
  readonly description: string;
}

/** The bearer token of an Authorization header, or undefined (absent, another scheme, malformed). */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
}

/**
 * Static tokens, each with its principal and, when `grantedScopes` lists the principal, only those scopes
 * (a token it does not list holds every scope).
 */
export function staticTokenAuthenticator(
  tokens: BearerTokens,
  grantedScopes: Readonly<Record<string, readonly string[]>> = {},
): RequestAuthenticator {
  const scopesOf = new Map(Object.entries(grantedScopes).map(([principal, scopes]) => [principal, new Set(scopes)]));
  return {
    mode: "tokens",
    description: `bearer tokens for ${tokens.principals.join(", ")}`,
    authenticate(authorization) {
      const principal = tokens.authenticate(authorization);
      if (principal === undefined) {
        const tokenSent = bearerTokenOf(authorization) !== undefined;
        return { kind: "refused", tokenSent, reason: tokenSent ? "unknown token" : "no bearer token" };
      }
      return { kind: "caller", caller: { principal, scopes: scopesOf.get(principal) } };
    },
  };
}
