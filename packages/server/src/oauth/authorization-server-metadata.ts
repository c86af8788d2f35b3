/** The fields of an authorization server's metadata (RFC 8414 / OpenID Discovery) the resource server reads. */
export interface AuthorizationServerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
}

/**
 * Read the issuer's metadata: RFC 8414's `/.well-known/oauth-authorization-server` (path inserted after
 * the host), then OpenID Discovery's `<issuer>/.well-known/openid-configuration`, which Entra ID and
 * oidc-provider serve. The document must name the same issuer (RFC 8414 §3.3), else it is refused: a
 * metadata document could otherwise point the server at another party's keys.
 */
export async function fetchAuthorizationServerMetadata(
  issuer: string,
  timeoutMs = 5_000,
): Promise<AuthorizationServerMetadata> {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  const candidates = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
  ];
  let lastProblem = "no metadata document answered";
  for (const candidate of candidates) {
    let response: Response;
    try {
      response = await fetch(candidate, {
        headers: { accept: "application/json" },
        redirect: "error",
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      lastProblem = `the metadata request failed (${(error as Error).name})`;
      continue;
    }
    if (!response.ok) {
      lastProblem = `the metadata document answered HTTP ${response.status}`;
      continue;
    }
    const metadata = (await response.json().catch(() => undefined)) as AuthorizationServerMetadata | undefined;
    if (typeof metadata?.issuer !== "string") {
      lastProblem = "the metadata document names no issuer";
      continue;
    }
    if (metadata.issuer !== issuer) throw new Error(`the metadata document names another issuer (${metadata.issuer})`);
    return metadata;
  }
  throw new Error(lastProblem);
}
