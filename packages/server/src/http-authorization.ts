import type { ServerResponse } from "node:http";
import { missingScopes, type AuthenticatedCaller } from "./access-policy.js";
import { isHandleToolName } from "./handle-tool-definitions.js";
import { rpcError, writeJson, writeRefusal } from "./http-responses.js";
import type { Authentication, RequestAuthenticator } from "./request-authentication.js";
import type { ScopeCheck } from "./request-dispatch.js";
import type { TaskService } from "./task-service.js";

/**
 * The HTTP side of authorization: Protected Resource Metadata (RFC 9728), the WWW-Authenticate
 * challenges of 401 and 403 (RFC 6750 §3), and the scope check of a request before the SDK sees it, so
 * that a token without a tool's scope gets a challenge it can step up from rather than a JSON-RPC error.
 */

export const protectedResourceMetadataPath = "/.well-known/oauth-protected-resource";

export interface ProtectedResource {
  /** The canonical URL of the MCP endpoint (the tokens' audience by default). */
  resource: string;
  authorizationServers: readonly string[];
  scopesSupported: readonly string[];
}

/** Where a client finds the metadata of the resource: the path form of RFC 9728 §3.1. */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.origin}${protectedResourceMetadataPath}${path}`;
}

/** The paths the metadata is served at: the root form, the endpoint's path form and the resource's. */
export function isProtectedResourceMetadataPath(pathname: string, endpointPath: string, resource: string): boolean {
  return (
    pathname === protectedResourceMetadataPath ||
    pathname === `${protectedResourceMetadataPath}${endpointPath}` ||
    pathname === new URL(resourceMetadataUrl(resource)).pathname
  );
}

export function serveProtectedResourceMetadata(response: ServerResponse, resource: ProtectedResource): void {
  response.setHeader("cache-control", "public, max-age=3600");
  writeJson(response, 200, {
    resource: resource.resource,
    authorization_servers: resource.authorizationServers,
    scopes_supported: resource.scopesSupported,
    bearer_methods_supported: ["header"],
    resource_name: "jobtasks",
  });
}

/** The challenge parameters every answer carries: the metadata's address in OAuth mode, a realm otherwise. */
function challengeBase(resource: string | undefined): string[] {
  return resource === undefined ? ['realm="jobtasks"'] : [`resource_metadata="${resourceMetadataUrl(resource)}"`];
}

/** Answer a request whose authentication failed: 401, 403 or 503, each with its challenge. */
export function writeAuthenticationRefusal(
  response: ServerResponse,
  outcome: Exclude<Authentication, { kind: "caller" }>,
  resource: string | undefined,
  requiredScopes: readonly string[] = [],
): void {
  switch (outcome.kind) {
    case "refused": {
      const parameters = challengeBase(resource);
      // The scopes to ask for (MCP authorization: least privilege), rather than every scope_supported.
      if (requiredScopes.length > 0) parameters.push(`scope="${requiredScopes.join(" ")}"`);
      // A client that sent a token learns it was refused; the reason stays in the server's debug log.
      if (outcome.tokenSent)
        parameters.push('error="invalid_token"', 'error_description="The access token is not valid for this server"');
      response.setHeader("WWW-Authenticate", `Bearer ${parameters.join(", ")}`);
      writeRefusal(response, 401, rpcError(-32001, "Unauthorized: send Authorization: Bearer <token>"));
      return;
    }
    case "insufficient-scope":
      writeInsufficientScope(response, outcome.scopes, resource);
      return;
    case "unavailable":
      response.setHeader("retry-after", "60");
      writeRefusal(
        response,
        503,
        rpcError(-32603, "The authorization server could not be reached to check the token; try again later"),
      );
  }
}

/** 403 with the scopes the request needs, so an OAuth client can ask for them (step-up). */
export function writeInsufficientScope(
  response: ServerResponse,
  scopes: readonly string[],
  resource: string | undefined,
): void {
  const parameters = [
    'error="insufficient_scope"',
    `scope="${scopes.join(" ")}"`,
    ...challengeBase(resource),
    `error_description="This request needs the scope ${scopes.join(" ")}"`,
  ];
  response.setHeader("WWW-Authenticate", `Bearer ${parameters.join(", ")}`);
  writeRefusal(response, 403, rpcError(-32001, `Forbidden: this request needs the scope ${scopes.join(" ")}`));
}

/**
 * The scopes a request needs that the caller lacks, judged without an upstream call from the scope check
 * its route names (routeRequest in request-dispatch.ts decides that from the method): a job tool's own, and
 * for tasks/* and the handle tools those of the tool that started the task. Undefined when nothing is
 * missing, or when the request is the SDK's or the service's to refuse (an unknown tool, an id that does
 * not open: Task not found, as for anyone).
 */
export function scopesMissingFor(
  check: ScopeCheck | undefined,
  caller: AuthenticatedCaller,
  service: TaskService,
): readonly string[] | undefined {
  if (caller.scopes === undefined || check === undefined) return undefined;
  const needed = (() => {
    if (check.of === "task") return service.missingTaskScopes(check.taskId, caller);
    if (service.registry.tool(check.name)) return service.access.toolScopes(check.name);
    if (service.clientsWithoutTasks !== "handles" || !isHandleToolName(check.name)) return undefined;
    return check.taskId !== undefined ? service.missingTaskScopes(check.taskId, caller) : undefined;
  })();
  if (needed === undefined) return undefined;
  const missing = missingScopes(needed, caller.scopes);
  return missing.length > 0 ? missing : undefined;
}

export type { RequestAuthenticator };
