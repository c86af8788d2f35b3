import { createServer, type Server } from "node:http";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { JsonWebKey } from "node:crypto";

/**
 * A real OpenID provider (npm oidc-provider, certified) on a loopback port, issuing access tokens for
 * jobtasks' resource through the client credentials grant. Tokens for `resource` are JWTs signed with
 * the provider's current key, except those of the client `opaqueClient`, which are opaque (for
 * introspection). `rotate()` replaces the signing key at the same issuer, as a provider's key rotation
 * does; the old key is still published beside the new one.
 */

export interface TestClient {
  clientId: string;
  clientSecret: string;
}

export interface OidcTestProvider {
  issuer: string;
  /** Signs with the current key; scopes this provider grants. */
  agent: TestClient;
  /** Its access tokens are opaque. */
  opaqueClient: TestClient;
  /** jobtasks' own credentials, for introspection. */
  resourceServer: TestClient;
  /** A public client (an MCP host): authorization code with PKCE, redirected to `hostRedirectUri`. */
  hostClientId: string;
  hostRedirectUri: string;
  /** The current signing key, private part included (for tokens a test forges with a bad claim). */
  signingKey: JsonWebKey & { kid: string; alg: string };
  /** Requests to the key set, as the provider saw them. */
  jwksRequests: number;
  /** A token from the token endpoint (client credentials) for a resource (any loopback URL). */
  token(client: TestClient, options: { resource: string; scope?: string }): Promise<string>;
  revoke(client: TestClient, token: string): Promise<void>;
  /** A new signing key at the same issuer (the old one stays published). */
  rotate(): Promise<void>;
  close(): Promise<void>;
}

export const grantedScopes = "jobs:run jobs:approve other:run";

export function newSigningKey(): JsonWebKey & { kid: string; alg: string; use: string } {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { ...privateKey.export({ format: "jwk" }), kid: randomBytes(6).toString("hex"), alg: "ES256", use: "sig" };
}

export async function startOidcTestProvider(
  options: { accessTokenTtlSeconds?: number } = {},
): Promise<OidcTestProvider> {
  const { default: Provider } = await import("oidc-provider");
  const agent = { clientId: "agent", clientSecret: randomBytes(24).toString("base64url") };
  const opaqueClient = { clientId: "opaque-agent", clientSecret: randomBytes(24).toString("base64url") };
  const resourceServer = { clientId: "jobtasks", clientSecret: randomBytes(24).toString("base64url") };
  const hostClientId = "mcp-host";
  // Never listened on: the test reads the code from the redirect, as a host's callback would.
  const hostRedirectUri = "http://127.0.0.1:9/callback";
  let keys = [newSigningKey()];
  let jwksRequests = 0;

  // The port is chosen first: the issuer names it, and a rotation restarts the provider at the same one.
  const httpServer: Server = createServer();
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;

  const build = () => {
    const provider = new Provider(issuer, {
      clients: [
        ...[agent, opaqueClient, resourceServer].map((client) => ({
          client_id: client.clientId,
          client_secret: client.clientSecret,
          grant_types: client === resourceServer ? [] : ["client_credentials"],
          redirect_uris: [],
          response_types: [],
          scope: grantedScopes,
          token_endpoint_auth_method: "client_secret_basic",
          id_token_signed_response_alg: "ES256",
        })),
        {
          client_id: hostClientId,
          grant_types: ["authorization_code"],
          redirect_uris: [hostRedirectUri],
          response_types: ["code"],
          scope: `openid ${grantedScopes}`,
          token_endpoint_auth_method: "none",
          id_token_signed_response_alg: "ES256",
        },
      ],
      jwks: { keys: keys as never },
      scopes: grantedScopes.split(" "),
      ttl: { ClientCredentials: options.accessTokenTtlSeconds ?? 300 },
      features: {
        clientCredentials: { enabled: true },
        // jobtasks' own client may introspect every token issued for its resource.
        introspection: { enabled: true, allowedPolicy: async () => true },
        revocation: { enabled: true },
        // The provider's own login and consent pages, which a test fills in as a person would.
        devInteractions: { enabled: true },
        resourceIndicators: {
          enabled: true,
          // Every resource is a loopback URL a test names: jobtasks' endpoint, or another one.
          defaultResource: (_context: unknown, _client: unknown, oneOf?: string[]) => oneOf?.[0],
          useGrantedResource: () => true,
          getResourceServerInfo: (_context: unknown, resourceIndicator: string, client: { clientId: string }) => {
            if (!resourceIndicator.startsWith("http://127.0.0.1:")) throw new Error("unknown resource");
            return {
              scope: grantedScopes,
              audience: resourceIndicator,
              accessTokenTTL: options.accessTokenTtlSeconds ?? 300,
              accessTokenFormat: client.clientId === opaqueClient.clientId ? "opaque" : "jwt",
              ...(client.clientId === opaqueClient.clientId ? {} : { jwt: { sign: { alg: "ES256" } } }),
            };
          },
        },
      },
    } as never);
    // The provider refuses plain http unless told it sits behind a proxy; this one is on loopback only.
    (provider as unknown as { proxy: boolean }).proxy = true;
    return provider;
  };
  let callback = build().callback();
  httpServer.on("request", (request, response) => {
    if (request.url?.startsWith("/jwks")) jwksRequests += 1;
    callback(request, response);
  });

  const tokenRequest = async (path: string, client: TestClient, body: Record<string, string>) => {
    const response = await fetch(`${issuer}${path}`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams(body).toString(),
    });
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return response;
  };

  return {
    issuer,
    agent,
    opaqueClient,
    resourceServer,
    hostClientId,
    hostRedirectUri,
    get signingKey() {
      return keys[0]!;
    },
    get jwksRequests() {
      return jwksRequests;
    },
    async token(client, tokenOptions) {
      const response = await tokenRequest("/token", client, {
        grant_type: "client_credentials",
        resource: tokenOptions.resource,
        scope: tokenOptions.scope ?? "jobs:run",
      });
      return ((await response.json()) as { access_token: string }).access_token;
    },
    async revoke(client, token) {
      await tokenRequest("/token/revocation", client, { token, token_type_hint: "access_token" });
    },
    async rotate() {
      keys = [newSigningKey(), ...keys];
      callback = build().callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}
