/** How the resource server asks the authorization server about a token (RFC 7662). */
export interface IntrospectionOptions {
  /** The introspection endpoint; default: `introspection_endpoint` of the issuer's metadata. */
  endpoint?: string;
  /** This resource server's own client credentials at the authorization server (client_secret_basic). */
  clientId: string;
  clientSecret: string;
  /**
   * Also ask about JWT access tokens that verified locally, so a revoked one is refused within
   * `cacheSeconds`. Default false: JWTs are trusted until they expire, and only opaque tokens are asked about.
   */
  jwts?: boolean;
  /** How long an answer is reused (never past the token's own exp). Default 60 s, at most 300 s. */
  cacheSeconds?: number;
}

/** What an active token's introspection said; inactive tokens are undefined. */
export interface IntrospectedToken {
  subject: string;
  issuer: string | undefined;
  audiences: string[];
  scope: string | undefined;
  /** Seconds since the epoch, when the answer says. */
  expiresAt: number | undefined;
  notBefore: number | undefined;
}

/** Ask the endpoint about one token. The token goes in the body, never in a URL, and is never logged. */
export async function introspectToken(
  endpoint: string,
  options: Pick<IntrospectionOptions, "clientId" | "clientSecret">,
  token: string,
  timeoutMs = 5_000,
): Promise<IntrospectedToken | undefined> {
  // RFC 6749 §2.3.1: the id and secret are form-urlencoded before they are joined for Basic.
  const credentials = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
  const response = await fetch(endpoint, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(credentials).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    },
    body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
    redirect: "error",
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new Error(`the introspection endpoint answered HTTP ${response.status}`);
  const answer = (await response.json()) as Record<string, unknown>;
  if (answer["active"] !== true) return undefined;
  const audience = answer["aud"];
  return {
    // A client credentials token may have no sub: the client itself is then the subject (as in the JWTs
    // such providers issue, whose sub is the client id).
    subject:
      typeof answer["sub"] === "string"
        ? answer["sub"]
        : typeof answer["client_id"] === "string"
          ? answer["client_id"]
          : "",
    issuer: typeof answer["iss"] === "string" ? answer["iss"] : undefined,
    audiences: typeof audience === "string" ? [audience] : Array.isArray(audience) ? audience.map(String) : [],
    scope: typeof answer["scope"] === "string" ? answer["scope"] : undefined,
    expiresAt: typeof answer["exp"] === "number" ? answer["exp"] : undefined,
    notBefore: typeof answer["nbf"] === "number" ? answer["nbf"] : undefined,
  };
}
