import { z } from "@jobtasks/core";
import { asymmetricAlgorithms, isLoopbackHost } from "@jobtasks/server";

/** RFC 6749 §3.3: a scope token is printable ASCII without space, `"` or `\`. */
const scope = z
  .string()
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, "a scope is printable ASCII without spaces, quotes or backslashes");
const scopes = z.array(scope);
/** Tokens and keys over plain http could be read or replaced on the way: http only on this machine. */
const httpsOrLoopbackUrl = z.url().refine((value) => {
  const url = new URL(value);
  return (
    url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname.replace(/^\[|\]$/g, "")))
  );
}, "use an https URL (http only for a loopback host)");

const introspectionSchema = z.strictObject({
  endpoint: httpsOrLoopbackUrl
    .optional()
    .describe("The introspection endpoint (RFC 7662); default: introspection_endpoint of the issuer's metadata"),
  clientId: z.string().min(1).describe("This server's client id at the authorization server"),
  clientSecret: z.string().min(1).describe("Its client secret (use ${ENV_VAR})"),
  jwts: z
    .boolean()
    .default(false)
    .describe(
      "Also introspect JWT access tokens, so a revoked one is refused within cacheSeconds (default: only opaque tokens are introspected)",
    ),
  cacheSeconds: z
    .number()
    .int()
    .min(0)
    .max(300)
    .default(60)
    .describe("How long an introspection answer is reused, never past the token's exp"),
});

/** `server.auth`: how HTTP callers are authenticated, and the scopes each tool and each approval needs. */
export const authSettingsSchema = z
  .strictObject({
    mode: z
      .enum(["tokens", "oauth"])
      .default("tokens")
      .describe(
        '"tokens": static tokens from JOBTASKS_AUTH_TOKENS; "oauth": access tokens of an OAuth 2.1 / OpenID authorization server',
      ),
    issuer: httpsOrLoopbackUrl
      .optional()
      .describe("oauth: the issuer identifier, exactly as the tokens' iss claim spells it"),
    resource: httpsOrLoopbackUrl
      .optional()
      .describe(
        "oauth: the canonical URL of this MCP endpoint as clients reach it (https://jobtasks.example.com/mcp); default the listening URL",
      ),
    audience: z.string().min(1).optional().describe("oauth: the aud claim tokens must carry; default the resource"),
    jwksUri: httpsOrLoopbackUrl
      .optional()
      .describe("oauth: where the issuer's signing keys are; default jwks_uri of its metadata"),
    algorithms: z
      .array(z.enum(asymmetricAlgorithms))
      .min(1)
      .optional()
      .describe("oauth: accepted signature algorithms; default every asymmetric one (HMAC is never accepted)"),
    tokenType: z
      .literal("at+jwt")
      .optional()
      .describe(
        "oauth: require this typ header (RFC 9068), when the issuer sets it, so that no other JWT of the issuer (an ID token) passes",
      ),
    clockSkewSeconds: z
      .number()
      .int()
      .min(0)
      .max(60)
      .default(30)
      .describe("oauth: tolerated clock difference for exp and nbf"),
    requiredScopes: scopes
      .default([])
      .describe("oauth: scopes every request needs (403 insufficient_scope without them)"),
    scopeClaims: z
      .array(z.string().min(1))
      .min(1)
      .default(["scope", "scp"])
      .describe('oauth: claims read as the token\'s scopes (add "roles" for Entra ID application tokens)'),
    introspection: introspectionSchema
      .optional()
      .describe("oauth: token introspection, for opaque tokens (and revocation of JWTs)"),
    defaultToolScopes: scopes.default([]).describe("Scopes a tool needs when toolScopes names none for it"),
    toolScopes: z
      .record(z.string(), scopes)
      .default({})
      .describe("Per tool name: the scopes needed to see and call it and to follow, answer or cancel its tasks"),
    approvalScope: scope.optional().describe("The scope needed to answer a question an adapter marks as an approval"),
    adapterApprovalScopes: z
      .record(z.string(), scope)
      .default({})
      .describe("Per adapter instance name: its approval scope, instead of approvalScope"),
    tokenScopes: z
      .record(z.string(), scopes)
      .default({})
      .describe(
        "tokens: per token name in JOBTASKS_AUTH_TOKENS, the only scopes it grants (a name not listed holds every scope)",
      ),
  })
  .superRefine((auth, context) => {
    if (auth.mode === "oauth" && auth.issuer === undefined)
      context.addIssue({ code: "custom", path: ["issuer"], message: "oauth needs the issuer of the access tokens" });
    if (auth.mode === "tokens") {
      for (const field of [
        "issuer",
        "resource",
        "audience",
        "jwksUri",
        "algorithms",
        "tokenType",
        "introspection",
      ] as const) {
        if (auth[field] !== undefined)
          context.addIssue({ code: "custom", path: [field], message: 'applies to mode "oauth" only' });
      }
    }
    if (auth.mode === "oauth" && Object.keys(auth.tokenScopes).length > 0)
      context.addIssue({ code: "custom", path: ["tokenScopes"], message: 'applies to mode "tokens" only' });
  });

export type AuthSettings = z.infer<typeof authSettingsSchema>;
