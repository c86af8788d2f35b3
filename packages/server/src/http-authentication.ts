import type { IncomingMessage, ServerResponse } from "node:http";
import { ConfigError } from "@jobtasks/core";
import { localPrincipal, type BearerTokens } from "./auth.js";
import type { AuthenticatedCaller } from "./access-policy.js";
import { staticTokenAuthenticator, type Authentication, type RequestAuthenticator } from "./request-authentication.js";
import {
  isProtectedResourceMetadataPath,
  serveProtectedResourceMetadata,
  writeAuthenticationRefusal,
  writeInsufficientScope,
} from "./http-authorization.js";
import type { OAuthAuthenticator, OAuthOptions } from "./oauth/oauth-authenticator.js";
import type { Logger } from "./logger.js";

export interface HttpAuthenticationOptions {
  tokens?: BearerTokens | undefined;
  tokenScopes?: Readonly<Record<string, readonly string[]>> | undefined;
  oauth?: (Omit<OAuthOptions, "resource"> & { resource?: string }) | undefined;
}

/**
 * Who an HTTP request is from: nobody checked (one local principal), a static token, or an OAuth access
 * token. OAuth's check is built once the server listens, since its default resource is the listening URL,
 * and it loads jose then; requests that arrive earlier wait for it, so none is served unauthenticated.
 */
export class HttpAuthentication {
  readonly #options: HttpAuthenticationOptions;
  #authenticator: RequestAuthenticator | undefined;
  #resource: string | undefined;
  readonly #ready: Promise<void>;
  /** Whether #ready has resolved: from then on a request is checked without waiting on it. */
  #isReady: boolean;
  #settle: (error?: unknown) => void = () => undefined;

  constructor(options: HttpAuthenticationOptions) {
    if (options.tokens && options.oauth) throw new ConfigError("server.auth", "give static tokens or OAuth, not both");
    this.#options = options;
    this.#authenticator = options.tokens ? staticTokenAuthenticator(options.tokens, options.tokenScopes) : undefined;
    this.#isReady = !options.oauth;
    this.#ready = options.oauth
      ? new Promise<void>((resolve, reject) => {
          this.#settle = (error) => {
            if (error !== undefined) return reject(error);
            this.#isReady = true;
            resolve();
          };
        })
      : Promise.resolve();
    this.#ready.catch(() => undefined);
  }

  /** Whether every request must be authenticated. */
  get required(): boolean {
    return this.#options.tokens !== undefined || this.#options.oauth !== undefined;
  }

  get description(): string {
    return this.#authenticator?.description ?? "none (single local principal)";
  }

  get oauth(): OAuthAuthenticator | undefined {
    return this.#authenticator?.mode === "oauth" ? (this.#authenticator as OAuthAuthenticator) : undefined;
  }

  /** Build the OAuth check for the server now listening at `listeningUrl` (nothing to do otherwise). */
  async start(listeningUrl: string): Promise<void> {
    if (!this.#options.oauth) return;
    const { resource, ...oauth } = this.#options.oauth;
    this.#resource = resource ?? listeningUrl;
    try {
      const loaded = await import("./oauth/oauth-authenticator.js");
      this.#authenticator = await loaded.createOAuthAuthenticator({ ...oauth, resource: this.#resource });
      this.#settle();
    } catch (error) {
      this.#settle(error);
      throw error;
    }
  }

  /** Answer a request for the protected resource metadata and return true; false for any other path. */
  serveMetadata(response: ServerResponse, pathname: string, endpointPath: string, policyScopes: string[]): boolean {
    const oauth = this.#options.oauth;
    if (!oauth || this.#resource === undefined) return false;
    if (!isProtectedResourceMetadataPath(pathname, endpointPath, this.#resource)) return false;
    serveProtectedResourceMetadata(response, {
      resource: this.#resource,
      authorizationServers: [oauth.issuer],
      scopesSupported: [...new Set([...(oauth.requiredScopes ?? []), ...policyScopes])],
    });
    return true;
  }

  /**
   * The request's caller; or undefined once its refusal (401, 403 or 503, with a challenge) is written.
   * `toolScopes` are what a 401 asks for when no requiredScopes are set (never an approval scope).
   */
  authenticate(
    request: IncomingMessage,
    response: ServerResponse,
    logger: Logger,
    toolScopes: readonly string[] = [],
  ): AuthenticatedCaller | undefined | Promise<AuthenticatedCaller | undefined> {
    // Answered at once whenever nothing needs waiting for (no OAuth start-up pending, no token to ask an
    // issuer about): every promise a request makes costs the async context's hooks on Node 20 and 22.
    if (!this.#isReady) return this.#ready.then(() => this.authenticate(request, response, logger, toolScopes));
    if (!this.required) return { principal: localPrincipal, scopes: undefined };
    if (!this.#authenticator) throw new Error("authentication is configured but its check is missing");
    const outcome = this.#authenticator.authenticate(request.headers.authorization);
    return outcome instanceof Promise
      ? outcome.then((settled) => this.#concluded(settled, response, logger, toolScopes))
      : this.#concluded(outcome, response, logger, toolScopes);
  }

  #concluded(
    outcome: Authentication,
    response: ServerResponse,
    logger: Logger,
    toolScopes: readonly string[],
  ): AuthenticatedCaller | undefined {
    if (outcome.kind === "caller") return outcome.caller;
    // The reason names the failed check (an expired token, another audience), never the token.
    logger.debug(
      { outcome: outcome.kind, reason: "reason" in outcome ? outcome.reason : undefined },
      "request refused",
    );
    const requiredScopes = this.#options.oauth?.requiredScopes ?? [];
    const askFor = this.#options.oauth && requiredScopes.length === 0 ? toolScopes : requiredScopes;
    writeAuthenticationRefusal(response, outcome, this.#resource, askFor);
    return undefined;
  }

  /** 403 insufficient_scope for a request whose tool or task needs these scopes. */
  refuseMissingScopes(response: ServerResponse, missing: readonly string[]): void {
    writeInsufficientScope(response, missing, this.#resource);
  }
}
